-- Wakes the dispatchers when tasks are inserted by anything but Taskfence itself (SQL, another tool), so that they
-- are dispatched at once rather than at the next tick. Taskfence's own submissions wake its dispatcher in process
-- and connect with application_name 'taskfence', which this trigger skips: a NOTIFY serialises the commits that
-- send one, which the REST path's many small transactions should not pay. One notification per statement, on a
-- channel of this schema's own (its name hashed: a channel name is at most 63 bytes), so that deployments and test
-- runs sharing a database do not wake each other. PostgreSQL sends it at commit.
create function tasks_inserted_notify() returns trigger language plpgsql as $$
begin
    if current_setting('application_name', true) is distinct from 'taskfence' then
        perform pg_notify('taskfence_due_' || md5(tg_table_schema), '');
    end if;
    return null;
end $$;

create trigger tasks_inserted after insert on tasks for each statement execute function tasks_inserted_notify();
