-- One row per batch that dispatch moved to ENQUEUED, written in the batch's fenced transaction, so only
-- batches PostgreSQL accepted appear. Ordered by id (taken while the fence row is locked, so in commit
-- order), the tokens never go down and each token's batches are contiguous: one dispatcher at a time.
-- Operators read it to see who dispatched what and when; dispatch prunes rows older than a day.
create table dispatch_log (
    id      bigserial   primary key,
    token   bigint      not null,
    holder  text        not null,
    tasks   int         not null,
    at      timestamptz not null default clock_timestamp()
);
create index dispatch_log_at on dispatch_log (at);
