-- Concurrency groups (DESIGN.md, "Dispatch", "Concurrency groups"): a task may carry a concurrency key; a type's
-- max-per-key bounds how many tasks of one group (type, owner, key) are ENQUEUED, PROCESSING or waiting again after
-- they were (below) at once, and a group's tasks are taken in the order they were submitted (key_order, from the
-- sequence below).
alter table tasks add column concurrency_key text;
-- Set for tasks with a concurrency key only: tasks without one pay nothing for it.
alter table tasks add column key_order bigint;
create sequence tasks_key_order;

-- A due row says whether its task holds its place in its group: one that was ENQUEUED or PROCESSING and waits again
-- (FAILED for its retry, PENDING after a handler's "later" or a lost message), so that a group limited to one runs
-- its tasks one after another, in order, retries included. A task retried by an operator (from DEAD or CANCELLED)
-- had left its group: it holds no place, and waits for the group's running tasks like the others, in the order it
-- was first submitted.
-- Compared and ordered byte by byte (collation "C") in the side tables, whatever the database's collation: dispatch
-- walks each owner's groups in key order from where the last batch served (a key it remembers), and the service
-- compares keys the same way.
alter table tasks_due add column concurrency_key text collate "C";
alter table tasks_due add column key_order bigint;
alter table tasks_due add column holds_place boolean not null default false;
update tasks_due d set holds_place = true from tasks t where t.id = d.task_id and t.status = 'FAILED';
-- Each group's waiting rows: those holding their places first, then the rest in submission order. The groups are
-- found by a skip scan of the first three columns; the rows holding places counted by a range of the first four.
-- Partial: no entry for a task without a key.
create index tasks_due_groups on tasks_due (type, owner, concurrency_key, holds_place desc, key_order)
    where concurrency_key is not null;

alter table tasks_in_flight add column concurrency_key text collate "C";
-- A group's tasks ENQUEUED or PROCESSING, counted by dispatch for each group it looks at. Partial: no entry for a task
-- without a key.
create index tasks_in_flight_groups on tasks_in_flight (type, owner, concurrency_key) where concurrency_key is not null;

create or replace function task_left_happy_path() returns trigger language plpgsql set search_path from current as $$
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
        insert into tasks_due (task_id, priority, run_at, type, owner, concurrency_key, key_order, holds_place)
        values (new.id, new.priority, new.run_at, new.type, coalesce(new.owner, ''), new.concurrency_key,
                new.key_order, new.status = 'FAILED' or old.status in ('ENQUEUED', 'PROCESSING'))
        on conflict (task_id) do update set priority = excluded.priority, run_at = excluded.run_at,
                holds_place = excluded.holds_place;
    end if;
    return null;
end $$;

create or replace function tasks_inserted() returns trigger language plpgsql set search_path from current as $$
begin
    insert into tasks_due (task_id, priority, run_at, type, owner, concurrency_key, key_order, holds_place)
        select id, priority, run_at, type, coalesce(owner, ''), concurrency_key, key_order, status = 'FAILED'
        from inserted where status in ('PENDING', 'FAILED');
    if current_setting('application_name', true) is distinct from 'taskfence' then
        perform pg_notify('taskfence_due_' || md5(tg_table_schema), '');
    end if;
    return null;
end $$;
