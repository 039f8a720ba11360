-- Task types an admin paused (POST /api/v1/types/{type}/pause): dispatch leaves their due tasks PENDING.
-- Kept here, not in a replica's memory, so that whichever replica dispatches sees the same set.
create table paused_types (
    type      text        primary key,
    paused_at timestamptz not null default now(),
    paused_by text
);

-- The starts of each rate-limited type (taskfence.types.<type>.rate): one row per claim that took some of its
-- tasks, written in the claim's transaction. The sum over the last window, plus the type's ENQUEUED tasks, is
-- what dispatch leaves no room beyond; dispatch prunes rows older than the longest window (a minute).
create table type_starts (
    type  text        not null,
    at    timestamptz not null,
    tasks int         not null check (tasks > 0)
);
create index type_starts_type_at on type_starts (type, at);
