-- Dedupe keys (DESIGN.md, "Submission", "Dedupe"). task_dedupes: the task each (owner, type, key) made last, written
-- by the submission that made it, under the key's advisory lock; it answers for the key while it has not started
-- (PENDING or WAITING, never dispatched: enqueues = 0), checked against the task on each look, so a started or deleted
-- task's row is only overwritten by the next. run_by: a debounce's bound, its first submission + maxWait; null for
-- none. One row a key, not one a task: a key used by a schedule for years is still one row. owner is '' without
-- authentication.
create table task_dedupes (
    owner text not null,
    type text not null,
    key text not null,
    task_id uuid not null,
    run_by timestamptz,
    primary key (owner, type, key)
);
create index task_dedupes_task on task_dedupes (task_id);

-- What an event that changes no status did: a dedupe submission replaced the task's payload, or moved its runAt.
alter table task_event_log add column note text;

create or replace view task_events as
select task_id, id, at, from_status, to_status, attempt, worker, error, note from task_event_log
union all
select t.id, implied.id, implied.at, implied.from_status, implied.to_status, implied.attempt, implied.worker, null, null
from tasks t
cross join lateral (select coalesce((select l.to_status from task_event_log l where l.task_id = t.id
        order by l.id desc limit 1), 'PENDING') as status) as last
cross join lateral (
    select 0::bigint as id, t.created_at as at, null::text as from_status,
           case when t.on_dependency_failure is not null then 'WAITING' else 'PENDING' end::text as to_status,
           0 as attempt, null::text as worker
    union all
    select 9223372036854775805, t.enqueued_at, last.status, 'ENQUEUED',
           case when t.started_at is null then t.attempt else t.attempt - 1 end, null
    where t.enqueued_at is not null
    union all
    select 9223372036854775806, t.started_at, 'ENQUEUED', 'PROCESSING', t.attempt, t.worker
    where t.started_at is not null
    union all
    select 9223372036854775807, t.updated_at, 'PROCESSING', 'SUCCEEDED', t.attempt, t.worker
    where t.status = 'SUCCEEDED' and t.started_at is not null
) as implied
where t.history_implied;
