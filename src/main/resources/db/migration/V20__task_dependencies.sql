-- Dependencies (DESIGN.md, "Task lifecycle", "Dependencies"): a task may wait for others to succeed. It is WAITING
-- until each has ended; the transition that ends the last one releases it (→ PENDING) in its own transaction, through
-- the trigger below, whichever statement made it (the success batch, a failure, a cancel, recovery, SQL by hand).

alter table tasks drop constraint tasks_status_check;
alter table tasks add constraint tasks_status_check
    check (status in ('WAITING', 'PENDING', 'ENQUEUED', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'DEAD', 'CANCELLED')) not valid;
alter table tasks validate constraint tasks_status_check;

-- On a dependent: how many of its dependencies have not ended yet, and what it does when one ends DEAD or CANCELLED
-- ('cancel' or 'run'); both null for a task created PENDING (without dependencies, or with all of them ended). On a dependency: whether a task waits for it, so
-- that its end looks for dependents only then (the trigger's when clause reads the row; every other task's
-- transitions pay nothing). Added without defaults, so without rewriting the table; none is indexed (HOT).
alter table tasks add column dependencies_left int;
alter table tasks add column on_dependency_failure text check (on_dependency_failure in ('cancel', 'run'));
alter table tasks add column has_dependents boolean;

-- A dependent's edges: resolved once the dependency has ended (and counted off dependencies_left), so that a
-- dependency that ends twice (DEAD, retried, then SUCCEEDED) counts once. Kept after release: they are the task's
-- dependsOn. Deleted with either task.
create table task_dependencies (
    depends_on uuid    not null,
    task_id    uuid    not null,
    resolved   boolean not null,
    primary key (depends_on, task_id)
);
create index task_dependencies_task on task_dependencies (task_id);

-- The WAITING tasks, with their owners: what the quota counts and listing by status narrows to. Inserted by the
-- insert's statement trigger, deleted by task_left_happy_path when the task leaves WAITING.
create table tasks_waiting (
    task_id uuid primary key,
    owner   text not null
);
create index tasks_waiting_owner on tasks_waiting (owner);

-- A dependency ended: its unresolved edges are resolved, and each dependent still WAITING counts it off. A
-- dependency that SUCCEEDED, or failed for a dependent that runs anyway, releases the dependent (→ PENDING) when it
-- was the last; one that ended DEAD or CANCELLED cancels the others, and so their dependents in turn: the whole
-- cascade in this one statement (a trigger firing once a level would nest as deep as the chain is long, and
-- PostgreSQL's stack ends at about a thousand). The cancels it makes fire this trigger again, which finds their
-- edges resolved already. The rows it moves are locked in id order. Each statement of a trigger function sees what
-- committed before it began, so an edge that a submission added while this dependency was still running (the
-- submission locks the dependency's row, see Submissions) is seen here.
create function dependency_ended() returns trigger language plpgsql set search_path from current as $$
declare
    released int;
begin
    with recursive reached(task_id, depends_on, ended_as, cancels) as (
        select e.task_id, e.depends_on, new.status::text,
               new.status <> 'SUCCEEDED' and t.on_dependency_failure = 'cancel'
        from task_dependencies e join tasks t on t.id = e.task_id
        where e.depends_on = new.id and not e.resolved and t.status = 'WAITING'
      union
        select e.task_id, e.depends_on, 'CANCELLED', t.on_dependency_failure = 'cancel'
        from reached r join task_dependencies e on e.depends_on = r.task_id join tasks t on t.id = e.task_id
        where r.cancels and not e.resolved and t.status = 'WAITING'),
    resolved as (
        update task_dependencies e set resolved = true from reached r
        where e.depends_on = r.depends_on and e.task_id = r.task_id and not e.resolved
        returning e.task_id, e.depends_on),
    counted as (
        select x.task_id, count(*)::int as n, bool_or(r.cancels) as cancels,
               min(case when r.cancels then 'dependency ' || r.depends_on || ' ended ' || r.ended_as end) as why
        from resolved x join reached r on r.task_id = x.task_id and r.depends_on = x.depends_on
        group by x.task_id),
    locked as (
        select t.id, c.n, c.cancels, c.why from tasks t join counted c on c.task_id = t.id
        where t.status = 'WAITING' order by t.id for no key update of t),
    moved as (
        update tasks set
            dependencies_left = dependencies_left - locked.n,
            status = case
                when locked.cancels then 'CANCELLED'
                when dependencies_left - locked.n <= 0 then 'PENDING'
                else 'WAITING' end,
            last_error = case when locked.cancels then locked.why else last_error end,
            updated_at = now()
        from locked where tasks.id = locked.id and tasks.status = 'WAITING'
        returning tasks.status)
    select count(*) filter (where status = 'PENDING') into released from moved;
    -- Released tasks are due now: the dispatchers hear it at commit, as they hear of inserted ones (V12).
    if released > 0 then
        perform pg_notify('taskfence_due_' || md5(tg_table_schema), '');
    end if;
    return null;
end $$;
create trigger dependency_ended after update of status on tasks for each row
    when (new.has_dependents and old.status is distinct from new.status
          and new.status in ('SUCCEEDED', 'DEAD', 'CANCELLED'))
    execute function dependency_ended();

-- V15's, and a task leaving WAITING leaves tasks_waiting.
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

-- V15's, and inserted WAITING tasks join tasks_waiting.
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

-- V13's, and the deleted tasks' edges and tasks_waiting rows.
create or replace function tasks_deleted() returns trigger language plpgsql set search_path from current as $$
begin
    delete from tasks_due where task_id in (select id from deleted);
    delete from tasks_in_flight where task_id in (select id from deleted);
    delete from tasks_off_path where task_id in (select id from deleted);
    delete from tasks_waiting where task_id in (select id from deleted);
    -- Two statements, one per index: an "or" of the two would scan every edge.
    delete from task_dependencies where task_id in (select id from deleted);
    delete from task_dependencies where depends_on in (select id from deleted);
    return null;
end $$;

-- V13's view, with a dependent's creation going to WAITING. A task whose dependencies had all ended when it was
-- submitted is created PENDING, without a policy: on_dependency_failure is set exactly on the tasks created WAITING.
create or replace view task_events as
select task_id, id, at, from_status, to_status, attempt, worker, error from task_event_log
union all
select t.id, implied.id, implied.at, implied.from_status, implied.to_status, implied.attempt, implied.worker, null
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
