-- Task types an admin paused (POST /api/v1/types/{type}/pause): dispatch leaves their due tasks PENDING.
-- Kept here, not in a replica's memory, so that whichever replica dispatches sees the same set.
create table paused_types (
    type      text        primary key,
    paused_at timestamptz not null default now(),
    paused_by text
);

-- The enqueues of each rate-limited type (taskfence.types.<type>.rate): one row per dispatch batch that
-- moved some of its tasks, written in the batch's fenced transaction. The sum over the last window is what
-- the type has started in it; dispatch prunes rows older than the longest window (a minute).
create table type_starts (
    type  text        not null,
    at    timestamptz not null,
    tasks int         not null check (tasks > 0)
);
create index type_starts_type_at on type_starts (type, at);
