-- Rates per concurrency group (DESIGN.md, "Configuration", "Type limits"): the starts of the groups of the types with a
-- rate-per-key, one row per group and claim, written in the claim's transaction as type_starts is for a type's rate.
-- A group's sum over the last window, plus its ENQUEUED tasks, is what dispatch leaves it no room beyond; dispatch
-- prunes rows older than the longest window (a minute). owner is '' without authentication.
create table group_starts (
    type            text        not null,
    owner           text        not null,
    concurrency_key text        not null,
    at              timestamptz not null,
    tasks           int         not null check (tasks > 0)
);
create index group_starts_group_at on group_starts (type, owner, concurrency_key, at);
create index group_starts_at on group_starts (at);
