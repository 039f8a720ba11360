-- Task history (DESIGN section 1): one row per committed status change, written by a trigger in the
-- transition's own transaction, so that no transition (single, batched or set-based) can leave it out and a
-- transition that loses its condition writes none. Kept lean, as every task writes three or four of them:
-- no primary key and no foreign key (each would be one more index write or lookup per event); the one index
-- reads a task's events in order. Retention deletes a task's events with it.
create table task_events (
    id          bigint      generated always as identity,
    task_id     uuid        not null,
    -- The transition's time: the row's new updated_at, PostgreSQL's now() of the transition.
    at          timestamptz not null,
    from_status text,
    to_status   text        not null,
    attempt     int         not null,
    -- The claim id (replica/uuid) of the attempt the transition starts or ends; null otherwise.
    worker      text,
    -- The task's last_error when the transition records a failure (to FAILED or DEAD); null otherwise.
    error       text
);
-- Ordered by id: ids are taken while the task's row is locked, so a task's events are in commit order.
create index task_events_task on task_events (task_id, id);

create function task_event() returns trigger language plpgsql as $$
begin
    insert into task_events (task_id, at, from_status, to_status, attempt, worker, error)
    values (new.id, new.updated_at, old.status, new.status, new.attempt,
            case when new.status = 'PROCESSING' or old.status = 'PROCESSING' then new.worker end,
            case when new.status in ('FAILED', 'DEAD') then new.last_error end);
    return null;
end $$;

-- On insert OLD is null: the creation's event has no from status.
create trigger task_created after insert on tasks for each row execute function task_event();
-- Only updates that name status can change it (a heartbeat does not); of those, only real changes count.
create trigger task_moved after update of status on tasks for each row
    when (old.status is distinct from new.status) execute function task_event();

-- Retention needs no index of its own: a task finishes after it is created, so its old finished tasks are found
-- through tasks_status_newest (status, created_at) with created_at before the cut-off, then filtered on updated_at.
