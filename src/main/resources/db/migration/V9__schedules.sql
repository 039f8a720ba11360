-- Recurring schedules (DESIGN section 5, "Schedules"), managed over the API. The schedules job turns each
-- due occurrence into an ordinary task, keyed 'schedule:<name>:<occurrence>' among the tasks without an
-- owner, and moves next_fire_at on in the same fenced transaction: an occurrence becomes one task at most,
-- whichever replica runs the job and however often. version goes up with every write, so that a write
-- based on an older read (an edit, a materialisation) changes nothing.
create table schedules (
    name          text        primary key,
    cron          text        not null,
    cron_type     text        not null check (cron_type in ('unix', 'quartz')),
    zone          text        not null,
    type          text        not null,
    payload       jsonb       not null check (jsonb_typeof(payload) = 'object'),
    priority      int         not null,
    max_attempts  int         not null check (max_attempts between 1 and 100),
    paused        boolean     not null default false,
    misfire       text        not null check (misfire in ('skip', 'once')),
    -- The next occurrence not yet materialised; null when the expression fires no more.
    next_fire_at  timestamptz,
    version       bigint      not null default 1,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);
-- The job's look-up every second: the due schedules that are not paused.
create index schedules_due on schedules (next_fire_at) where not paused;
