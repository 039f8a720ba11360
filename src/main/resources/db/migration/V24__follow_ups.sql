-- Follow-ups (DESIGN.md, "Follow-ups"): what a task's end asks of other tasks (release or cancel its dependents, make
-- its callback task) leaves the ending statement. That statement appends one row here, through the trigger below, for
-- a task that has dependents or a callback; the fenced follow-ups job does the work in Java, in bounded chunks. No
-- trigger writes tasks any more: V20's dependency_ended and V22's task_ended_callback go.

drop trigger dependency_ended on tasks;
drop function dependency_ended();
drop trigger task_ended_callback on tasks;
drop function task_ended_callback();

-- Where the job takes its next rows from: a row with more work than one chunk goes to the back (a new turn), so that
-- one task with a million dependents does not hold back another's.
create sequence task_follow_ups_turn;

create table task_follow_ups (
    -- The order of ends: a task's rows are worked in it (DEAD, retried, SUCCEEDED: the DEAD end first).
    id            bigserial primary key,
    turn          bigint      not null default nextval('task_follow_ups_turn'),
    task_id       uuid        not null,
    ended_as      text        not null check (ended_as in ('SUCCEEDED', 'DEAD', 'CANCELLED')),
    ended_at      timestamptz not null default now(),
    -- Whether its dependents are still to be walked, and the last one walked (the walk goes in task_id order).
    dependents    boolean     not null,
    after_task    uuid,
    -- The callback task to make, as the task was when it ended ({url, task}); null once made, or without one.
    callback      jsonb,
    callback_max_attempts int,
    owner         text,
    trace_parent  text
);
create index task_follow_ups_by_turn on task_follow_ups (turn);
create index task_follow_ups_task on task_follow_ups (task_id, id);

