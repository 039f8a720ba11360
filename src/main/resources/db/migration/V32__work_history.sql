-- History (DESIGN.md, "History of work"): the history job folds finished work into a row per minute (per hour after a
-- day) and series: a type and an owner, '*' standing for all of either ('' is tasks without an owner). It reads the
-- task rows and the event log, never on the path of a task: no trigger, and the happy path writes nothing more.
create table work_history (
    bucket      timestamptz not null, -- the start of its minute, or of its hour before work_history_progress.hourly_before
    type        text        not null,
    owner       text        not null,
    started     integer     not null,
    succeeded   integer     not null,
    failed      integer     not null, -- attempts that failed and wait for their retry
    dead        integer     not null,
    cancelled   integer     not null,
    -- The wait (due to start) and run (start to end) times of the attempts that ended a task there: counts per bucket
    -- of a logarithmic scale (DurationHistogram), so that minutes add up into hours and steps exactly.
    wait_counts integer[]   not null,
    wait_max_ms bigint      not null,
    run_counts  integer[]   not null,
    run_max_ms  bigint      not null,
    primary key (type, owner, bucket)
);
-- Folding minutes into hours and deleting old rows go by time.
create index work_history_bucket on work_history (bucket);

-- Tasks whose happy path may still end in SUCCEEDED (implied by the row, with no event): those the job passed before
-- they finished, and those an operator retried (retry_at: the retry's event), looked at again, the longest unchecked
-- first, until they end.
create table work_history_unfinished (
    task_id    uuid        primary key,
    retry_at   timestamptz,
    checked_at timestamptz not null default now()
);
create index work_history_unfinished_checked on work_history_unfinished (checked_at);

-- Where the job is: one row.
create table work_history_progress (
    only_row         boolean     primary key default true check (only_row),
    tasks_created_at timestamptz not null default '1970-01-01T00:00:00Z', -- the walk over tasks, by (created_at, id)
    tasks_id         uuid        not null default '00000000-0000-0000-0000-000000000000',
    events_through   bigint      not null default 0, -- the walk over task_event_log, by id
    events_mark      bigint      not null default 0, -- the highest event id seen at events_mark_at: walked once settled
    events_mark_at   timestamptz not null default '1970-01-01T00:00:00Z',
    hourly_before    timestamptz not null default '1970-01-01T00:00:00Z',
    folded_until     timestamptz
);
insert into work_history_progress default values;

-- The events walked in the order they were written, a window of ids at a time. A BRIN: the log is appended to in id
-- order, and a BRIN adds no entry per event, where a B-tree would add one to every insert.
-- "if not exists": an operator may have built it concurrently first.
create index if not exists task_event_log_written on task_event_log using brin (id);
