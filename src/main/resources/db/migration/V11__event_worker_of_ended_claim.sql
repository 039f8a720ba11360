-- A transition out of PROCESSING records the claim it ends: the old row's worker. V8 took the new row's, which
-- a cancel of a running task clears in the same update, so that event named no worker.
create or replace function task_event() returns trigger language plpgsql as $$
begin
    insert into task_events (task_id, at, from_status, to_status, attempt, worker, error)
    values (new.id, new.updated_at, old.status, new.status, new.attempt,
            case when new.status = 'PROCESSING' then new.worker when old.status = 'PROCESSING' then old.worker end,
            case when new.status in ('FAILED', 'DEAD') then new.last_error end);
    return null;
end $$;
