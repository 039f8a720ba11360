-- Callbacks (DESIGN.md, "Callbacks"): a task may name a URL that hears of each of its ends. The end's transaction
-- makes a task of the built-in type 'callback' carrying the URL and the task's view as it ended, whatever statement
-- ended it (the success batch, a failure, recovery, a cancel, a cascade of dependency_ended, SQL); that task is
-- dispatched, run, retried and limited like any other, and POSTs the view to the URL through the http handler.

-- {"url", "maxAttempts"}; null for a task without one. Added without a default, so without rewriting the table.
alter table tasks add column callback jsonb;

create function task_ended_callback() returns trigger language plpgsql set search_path from current as $$
declare
    iso constant text := 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';
begin
    insert into tasks (id, type, payload, max_attempts, priority, run_at, owner, trace_parent, status)
    values (gen_random_uuid(), 'callback', jsonb_build_object('url', new.callback ->> 'url', 'task', jsonb_build_object(
                'id', new.id, 'type', new.type, 'payload', new.payload, 'status', new.status, 'attempt', new.attempt,
                'maxAttempts', new.max_attempts, 'priority', new.priority,
                'runAt', to_char(new.run_at at time zone 'UTC', iso),
                'deadline', to_char(new.deadline at time zone 'UTC', iso),
                'createdAt', to_char(new.created_at at time zone 'UTC', iso),
                'updatedAt', to_char(new.updated_at at time zone 'UTC', iso),
                'lastError', new.last_error, 'result', new.result, 'owner', new.owner,
                'concurrencyKey', new.concurrency_key, 'batchId', new.batch_id)),
            least(100, greatest(1, coalesce((new.callback ->> 'maxAttempts')::int, 5))), 0, now(), new.owner,
            new.trace_parent, 'PENDING');
    -- No NOTIFY: it would serialise the commits of the success batches that end tasks with callbacks (V12 makes
    -- Taskfence's own inserts skip it for that reason). The callback is due now; the next dispatch takes it.
    return null;
end $$;
create trigger task_ended_callback after update of status on tasks for each row
    when (new.callback is not null and old.status is distinct from new.status
          and new.status in ('SUCCEEDED', 'DEAD', 'CANCELLED'))
    execute function task_ended_callback();
