-- Fair dispatch and cheap quota counts (DESIGN.md, "Dispatch", "Quotas"): the side tables carry each task's owner
-- (the API key that submitted it; '' for tasks without one), so that dispatch can take each owner's due tasks in
-- turn from an index, and a quota count reads an owner's unfinished tasks only.
alter table tasks_due add column owner text not null default '';
update tasks_due d set owner = t.owner from tasks t where t.id = d.task_id and t.owner is not null;
drop index tasks_due_order;
-- Each owner's due tasks in dispatch order; owners are found by a skip scan of its first column.
create index tasks_due_owner_order on tasks_due (owner, priority desc, run_at);

-- In-flight rows are few (bounded by the queue's depth and the workers): counted by scan, no index to write.
alter table tasks_in_flight add column owner text not null default '';
update tasks_in_flight f set owner = t.owner from tasks t where t.id = f.task_id and t.owner is not null;

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
        insert into tasks_due (task_id, priority, run_at, type, owner)
        values (new.id, new.priority, new.run_at, new.type, coalesce(new.owner, ''))
        on conflict (task_id) do update set priority = excluded.priority, run_at = excluded.run_at;
    end if;
    return null;
end $$;

create or replace function tasks_inserted() returns trigger language plpgsql set search_path from current as $$
begin
    insert into tasks_due (task_id, priority, run_at, type, owner)
        select id, priority, run_at, type, coalesce(owner, '') from inserted where status in ('PENDING', 'FAILED');
    if current_setting('application_name', true) is distinct from 'taskfence' then
        perform pg_notify('taskfence_due_' || md5(tg_table_schema), '');
    end if;
    return null;
end $$;
