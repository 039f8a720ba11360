-- Bulk actions (DESIGN.md, "Bulk actions"): cancel or retry the tasks a filter matches, done in bounded batches by
-- the fenced actions job, each batch moving its tasks and recording how far the walk has got in one transaction.

create table task_actions (
    id               uuid        primary key,
    action           text        not null check (action in ('cancel', 'retry')),
    -- Only this owner's tasks (a submit key's own); null: every owner's (an admin key's, or authentication off).
    scope_owner      text,
    -- The filter as asked for, canonical (its statuses sorted): two actions asked with the same one are the same.
    filter           jsonb       not null,
    requested_by     text,
    requested_at     timestamptz not null default now(),
    state            text        not null check (state in ('RUNNING', 'DONE')),
    -- The tasks the filter matched when asked; then how many the walk has looked at, moved, and left for a quota.
    total            bigint      not null,
    looked_at        bigint      not null default 0,
    changed          bigint      not null default 0,
    over_quota       bigint      not null default 0,
    -- The last task looked at, in the walk's order (created_at, id); null before the first batch.
    after_created_at timestamptz,
    after_id         uuid,
    finished_at      timestamptz
);
-- At most one action running per action, scope and filter: the same request again answers the running one.
create unique index task_actions_running on task_actions (action, coalesce(scope_owner, ''), filter)
    where state = 'RUNNING';
create index task_actions_requested on task_actions (requested_at);
