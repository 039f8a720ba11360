-- The happy path (PENDING → ENQUEUED → PROCESSING → SUCCEEDED) costs PostgreSQL one HOT update per transition
-- (DESIGN.md, "Storage"): no index of tasks holds a column those transitions change, so each new row version stays on
-- its page and writes no index entry; and their history is implied by the row instead of written as events.

-- 1. No index may name status. Dispatch reads tasks_due, recovery and the type limits read tasks_in_flight; listing
-- by status reads those or tasks_off_path, and retention filters the creation-order index.
drop index tasks_due;
drop index tasks_status_newest;

-- Room on each page for the happy path's row versions: the tasks of a page get theirs together, within seconds of
-- their insert, and a version that does not fit goes to another page with an entry in every index (DESIGN.md,
-- "Storage": 50 made 75 % of the drain's updates HOT, 35 made 85 %, 25 made 96 %).
alter table tasks set (fillfactor = 25);

-- The tasks waiting for dispatch: a row per PENDING or FAILED task, and none for any other, with the task's priority,
-- run_at and type: written when the task enters one of those statuses (the insert's statement trigger, or the
-- triggers below), deleted by the dispatch batch that takes it, or by the triggers when the task leaves otherwise (a
-- cancel) or is deleted. Narrow, and written twice per task: what the partial index tasks_due over the task table was, without
-- making every transition of the task a non-HOT update.
create table tasks_due (
    task_id  uuid        primary key,
    priority int         not null,
    run_at   timestamptz not null,
    type     text        not null
);
create index tasks_due_order on tasks_due (priority desc, run_at);
insert into tasks_due (task_id, priority, run_at, type)
    select id, priority, run_at, type from tasks where status in ('PENDING', 'FAILED');

-- The tasks ENQUEUED or PROCESSING: a row per task, inserted by the dispatch batch that enqueues it, deleted by the
-- success batch that ends it or by the trigger below on any other way out. Recovery and the type limits read it.
create table tasks_in_flight (
    task_id uuid primary key,
    type    text not null
);
insert into tasks_in_flight (task_id, type) select id, type from tasks where status in ('ENQUEUED', 'PROCESSING');

-- The tasks that have been FAILED, DEAD or CANCELLED (since this migration, or were then): listing those statuses
-- reads these few instead of the whole table. Written by the trigger below, deleted with the task (the delete's
-- trigger below); a task that went on to succeed keeps its row (the listing checks the task's status).
create table tasks_off_path (
    task_id uuid primary key
);
insert into tasks_off_path (task_id) select id from tasks where status in ('FAILED', 'DEAD', 'CANCELLED');

-- 2. History. The stored events are task_event_log; task_events is now the whole history, stored and implied.
alter table task_events rename to task_event_log;
alter index task_events_task rename to task_event_log_task;

-- When the current attempt's happy-path transitions happened; set by dispatch and the claim, cleared when the task
-- leaves the happy path (the trigger below then writes them as events). Not indexed: HOT.
alter table tasks add column enqueued_at timestamptz;
alter table tasks add column started_at timestamptz;
-- Rows from before this migration keep their fully stored history (the old trigger goes on writing it); new rows
-- have their creation and happy-path events implied.
alter table tasks add column history_implied boolean not null default false;
alter table tasks alter column history_implied set default true;

drop trigger task_created on tasks;
drop trigger task_moved on tasks;
create trigger task_moved after update of status on tasks for each row
    when (old.status is distinct from new.status and not new.history_implied) execute function task_event();
-- task_event() (V11) inserts into task_events, now a view: it writes to the log instead. Every trigger function here
-- names its tables unqualified, so each one runs with the search_path of this migration (the service's schema): an
-- insert by a session whose search_path is another schema (psql, with the table named schema.tasks) still finds them.
create or replace function task_event() returns trigger language plpgsql set search_path from current as $$
begin
    insert into task_event_log (task_id, at, from_status, to_status, attempt, worker, error)
    values (new.id, new.updated_at, old.status, new.status, new.attempt,
            case when new.status = 'PROCESSING' then new.worker when old.status = 'PROCESSING' then old.worker end,
            case when new.status in ('FAILED', 'DEAD') then new.last_error end);
    return null;
end $$;

-- Every status change but the three of the happy path, which do their own bookkeeping in their statements: writes
-- the events the row implied so far and this one (new rows), clears what it wrote, leaves tasks_in_flight when the
-- task stops being ENQUEUED or PROCESSING, and joins tasks_due when it waits again. An after trigger: a before row
-- trigger on update makes PostgreSQL lock every row an update touches first, happy path included, one more WAL
-- record each; an after trigger whose when clause is false costs nothing. So the clearing is an update of its own,
-- on these rare transitions only (it names neither status, run_at nor priority: no trigger fires again).
create function task_left_happy_path() returns trigger language plpgsql set search_path from current as $$
begin
    if new.history_implied then
        if old.enqueued_at is not null then
            insert into task_event_log (task_id, at, from_status, to_status, attempt, worker, error)
            values (old.id, old.enqueued_at, coalesce((select to_status from task_event_log where task_id = old.id
                    order by id desc limit 1), 'PENDING'), 'ENQUEUED',
                    case when old.started_at is null then old.attempt else old.attempt - 1 end, null, null);
        end if;
        if old.started_at is not null then
            insert into task_event_log (task_id, at, from_status, to_status, attempt, worker, error)
            values (old.id, old.started_at, 'ENQUEUED', 'PROCESSING', old.attempt, old.worker, null);
        end if;
        insert into task_event_log (task_id, at, from_status, to_status, attempt, worker, error)
        values (new.id, new.updated_at, old.status, new.status, new.attempt,
                case when new.status = 'PROCESSING' then new.worker when old.status = 'PROCESSING' then old.worker end,
                case when new.status in ('FAILED', 'DEAD') then new.last_error end);
    end if;
    if new.enqueued_at is not null or new.started_at is not null then
        update tasks set enqueued_at = null, started_at = null where id = new.id;
    end if;
    if old.status in ('ENQUEUED', 'PROCESSING') and new.status not in ('ENQUEUED', 'PROCESSING') then
        delete from tasks_in_flight where task_id = old.id;
    end if;
    if old.status in ('PENDING', 'FAILED') and new.status not in ('PENDING', 'FAILED') then
        delete from tasks_due where task_id = old.id;
    end if;
    if new.status in ('FAILED', 'DEAD', 'CANCELLED') then
        insert into tasks_off_path (task_id) values (new.id) on conflict (task_id) do nothing;
    end if;
    if new.status in ('PENDING', 'FAILED') then
        insert into tasks_due (task_id, priority, run_at, type) values (new.id, new.priority, new.run_at, new.type)
        on conflict (task_id) do update set priority = excluded.priority, run_at = excluded.run_at;
    end if;
    return null;
end $$;

create trigger task_left_happy_path after update of status on tasks for each row
    when (old.status is distinct from new.status
          and not (old.status in ('PENDING', 'FAILED') and new.status = 'ENQUEUED')
          and not (old.status = 'ENQUEUED' and new.status = 'PROCESSING')
          and not (old.status = 'PROCESSING' and new.status = 'SUCCEEDED'))
    execute function task_left_happy_path();

-- Deleted tasks (retention, or SQL) take their rows in the side tables with them; one call per statement.
create function tasks_deleted() returns trigger language plpgsql set search_path from current as $$
begin
    delete from tasks_due where task_id in (select id from deleted);
    delete from tasks_in_flight where task_id in (select id from deleted);
    delete from tasks_off_path where task_id in (select id from deleted);
    return null;
end $$;
create trigger tasks_deleted after delete on tasks referencing old table as deleted
    for each statement execute function tasks_deleted();

-- A waiting task whose time or priority was changed in place (by SQL: Taskfence changes them only with its status)
-- waits in tasks_due with the new ones.
create function task_rescheduled() returns trigger language plpgsql set search_path from current as $$
begin
    update tasks_due set priority = new.priority, run_at = new.run_at where task_id = new.id;
    return null;
end $$;
create trigger task_rescheduled after update of run_at, priority on tasks for each row
    when (old.status = new.status and new.status in ('PENDING', 'FAILED')
          and (old.run_at is distinct from new.run_at or old.priority is distinct from new.priority))
    execute function task_rescheduled();

-- Inserted tasks wait for dispatch, whoever inserts them (SQL included); one call per statement. Also wakes the
-- dispatchers as V12's trigger did.
create function tasks_inserted() returns trigger language plpgsql set search_path from current as $$
begin
    insert into tasks_due (task_id, priority, run_at, type)
        select id, priority, run_at, type from inserted where status in ('PENDING', 'FAILED');
    if current_setting('application_name', true) is distinct from 'taskfence' then
        perform pg_notify('taskfence_due_' || md5(tg_table_schema), '');
    end if;
    return null;
end $$;
drop trigger tasks_inserted on tasks;
drop function tasks_inserted_notify();
create trigger tasks_inserted after insert on tasks referencing new table as inserted
    for each statement execute function tasks_inserted();

-- A task's history in order of id: its creation (id 0), the stored events, then the happy-path events its row implies
-- (the three largest ids). What GET /api/v1/tasks/{id}/events reads.
create view task_events as
select task_id, id, at, from_status, to_status, attempt, worker, error from task_event_log
union all
select t.id, implied.id, implied.at, implied.from_status, implied.to_status, implied.attempt, implied.worker, null
from tasks t
cross join lateral (select coalesce((select l.to_status from task_event_log l where l.task_id = t.id
        order by l.id desc limit 1), 'PENDING') as status) as last
cross join lateral (
    select 0::bigint as id, t.created_at as at, null::text as from_status, 'PENDING'::text as to_status,
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
