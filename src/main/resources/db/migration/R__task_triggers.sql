-- The trigger functions and triggers on tasks as they are now (DESIGN.md, "Storage", "Follow-ups"): Flyway runs this
-- file after the versioned migrations whenever it changes, so a change of a trigger is a change here, and a reader
-- finds the schema in force in one place. No trigger here writes tasks: each writes only side tables
-- (task_event_log, tasks_due, tasks_in_flight, tasks_off_path, tasks_waiting, task_dependencies, batch_item_ends,
-- task_follow_ups, task_dedupes); ArchitectureTest holds that. Every function names its tables unqualified and runs
-- with the search_path of the migration (the service's schema), so a session whose search_path is another schema still
-- finds them.

-- A status change of a task whose history is not implied by its row (history_implied false: rows from before V13):
-- its event.
create or replace function task_event() returns trigger language plpgsql set search_path from current as $$
begin
    insert into task_event_log (task_id, at, from_status, to_status, attempt, worker, error)
    values (new.id, new.updated_at, old.status, new.status, new.attempt,
            case when new.status = 'PROCESSING' then new.worker when old.status = 'PROCESSING' then old.worker end,
            case when new.status in ('FAILED', 'DEAD') then new.last_error end);
    return null;
end $$;
create or replace trigger task_moved after update of status on tasks for each row
    when (old.status is distinct from new.status and not new.history_implied) execute function task_event();

-- Every status change but the three of the happy path, which do their own bookkeeping in their statements: writes the
-- events the row implied so far (its enqueued_at and started_at, which the statement that made this change cleared)
-- and this one, leaves tasks_in_flight when the task stops being ENQUEUED or PROCESSING, leaves tasks_due and
-- tasks_waiting, and joins tasks_due when it waits again. An after trigger: a before row trigger on update makes
-- PostgreSQL lock every row an update touches first, happy path included; an after trigger whose when clause is false
-- costs nothing.
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
    if old.status in ('ENQUEUED', 'PROCESSING') and new.status not in ('ENQUEUED', 'PROCESSING') then
        delete from tasks_in_flight where task_id = old.id;
    end if;
    if old.status in ('PENDING', 'FAILED') and new.status not in ('PENDING', 'FAILED') then
        delete from tasks_due where task_id = old.id;
    end if;
    if old.status = 'WAITING' then
        delete from tasks_waiting where task_id = old.id;
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
create or replace trigger task_left_happy_path after update of status on tasks for each row
    when (old.status is distinct from new.status
          and not (old.status in ('PENDING', 'FAILED') and new.status = 'ENQUEUED')
          and not (old.status = 'ENQUEUED' and new.status = 'PROCESSING')
          and not (old.status = 'PROCESSING' and new.status = 'SUCCEEDED'))
    execute function task_left_happy_path();

-- Inserted tasks wait for dispatch, or for their dependencies, whoever inserts them (SQL included); one call per
-- statement. An insert by anything but Taskfence wakes the dispatchers (Taskfence's own wake them in process).
create or replace function tasks_inserted() returns trigger language plpgsql set search_path from current as $$
begin
    insert into tasks_due (task_id, priority, run_at, type, owner, concurrency_key, key_order, holds_place)
        select id, priority, run_at, type, coalesce(owner, ''), concurrency_key, key_order, status = 'FAILED'
        from inserted where status in ('PENDING', 'FAILED');
    insert into tasks_waiting (task_id, owner) select id, coalesce(owner, '') from inserted where status = 'WAITING';
    if current_setting('application_name', true) is distinct from 'taskfence' then
        perform pg_notify('taskfence_due_' || md5(tg_table_schema), '');
    end if;
    return null;
end $$;
create or replace trigger tasks_inserted after insert on tasks referencing new table as inserted
    for each statement execute function tasks_inserted();

-- Deleted tasks (retention, or SQL) take their rows in the side tables and their edges with them; one call per
-- statement.
create or replace function tasks_deleted() returns trigger language plpgsql set search_path from current as $$
begin
    delete from tasks_due where task_id in (select id from deleted);
    delete from tasks_in_flight where task_id in (select id from deleted);
    delete from tasks_off_path where task_id in (select id from deleted);
    delete from tasks_waiting where task_id in (select id from deleted);
    delete from task_dedupes where task_id in (select id from deleted);
    -- Two statements, one per index: an "or" of the two would scan every edge.
    delete from task_dependencies where task_id in (select id from deleted);
    delete from task_dependencies where depends_on in (select id from deleted);
    return null;
end $$;
create or replace trigger tasks_deleted after delete on tasks referencing old table as deleted
    for each statement execute function tasks_deleted();

-- A waiting task whose time or priority was changed in place (by SQL, or by a dedupe submission's replace or debounce:
-- Taskfence's other writes change them only with its status) waits in tasks_due with the new ones.
create or replace function task_rescheduled() returns trigger language plpgsql set search_path from current as $$
begin
    update tasks_due set priority = new.priority, run_at = new.run_at where task_id = new.id;
    return null;
end $$;
create or replace trigger task_rescheduled after update of run_at, priority on tasks for each row
    when (old.status = new.status and new.status in ('PENDING', 'FAILED')
          and (old.run_at is distinct from new.run_at or old.priority is distinct from new.priority))
    execute function task_rescheduled();

-- An item of a batch entered a status it ends in, or left one (a DEAD item retried): appended for the batches job.
create or replace function batch_item_ended() returns trigger language plpgsql set search_path from current as $$
begin
    insert into batch_item_ends (batch_id, from_status, to_status) values (new.batch_id, old.status, new.status);
    return null;
end $$;
create or replace trigger batch_item_ended after update of status on tasks for each row
    when (new.batch_id is not null and old.status is distinct from new.status
          and (new.status in ('SUCCEEDED', 'DEAD', 'CANCELLED') or old.status in ('SUCCEEDED', 'DEAD', 'CANCELLED')))
    execute function batch_item_ended();

-- A task with dependents or a callback ended: one row, whatever statement ended it (the success batch, a failure,
-- recovery, a cancel, the follow-ups job's own cancels, SQL). The callback's body is the task as it ended, bounded
-- as a payload is: a result over 64 KiB of JSON is left out (resultTruncated, resultPath to read it), a lastError
-- is cut to its first 16,384 characters (lastErrorTruncated).
create or replace function task_ended_follow_up() returns trigger language plpgsql set search_path from current as $$
declare
    iso constant text := 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';
    view jsonb;
begin
    if new.callback is not null then
        view := jsonb_build_object(
            'id', new.id, 'type', new.type, 'payload', new.payload, 'status', new.status, 'attempt', new.attempt,
            'maxAttempts', new.max_attempts, 'priority', new.priority,
            'runAt', to_char(new.run_at at time zone 'UTC', iso),
            'deadline', to_char(new.deadline at time zone 'UTC', iso),
            'createdAt', to_char(new.created_at at time zone 'UTC', iso),
            'updatedAt', to_char(new.updated_at at time zone 'UTC', iso),
            'lastError', left(new.last_error, 16384), 'owner', new.owner,
            'concurrencyKey', new.concurrency_key, 'batchId', new.batch_id);
        if octet_length(new.result::text) > 65536 then
            view := view || jsonb_build_object('resultTruncated', true, 'resultPath', '/api/v1/tasks/' || new.id);
        else
            view := view || jsonb_build_object('result', new.result);
        end if;
        if char_length(new.last_error) > 16384 then
            view := view || jsonb_build_object('lastErrorTruncated', true);
        end if;
    end if;
    insert into task_follow_ups (task_id, ended_as, dependents, callback, callback_max_attempts, owner, trace_parent)
    values (new.id, new.status, coalesce(new.has_dependents, false),
            case when view is not null then jsonb_build_object('url', new.callback ->> 'url', 'task', view) end,
            least(100, greatest(1, coalesce((new.callback ->> 'maxAttempts')::int, 5))), new.owner, new.trace_parent);
    return null;
end $$;
create or replace trigger task_ended_follow_up after update of status on tasks for each row
    when ((new.has_dependents or new.callback is not null) and old.status is distinct from new.status
          and new.status in ('SUCCEEDED', 'DEAD', 'CANCELLED'))
    execute function task_ended_follow_up();
