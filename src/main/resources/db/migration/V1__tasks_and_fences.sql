-- The task table is the system of record; every status change is one conditional UPDATE (TaskTransitions).
create table tasks (
    id              uuid        primary key,
    type            text        not null,
    payload         jsonb       not null,
    status          text        not null default 'PENDING'
                    check (status in ('PENDING', 'ENQUEUED', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'DEAD', 'CANCELLED')),
    attempt         int         not null default 0 check (attempt >= 0),
    max_attempts    int         not null check (max_attempts between 1 and 100),
    priority        int         not null default 0,
    run_at          timestamptz not null default now(),
    deadline        timestamptz,
    lease_until     timestamptz,
    worker          text,
    fence           bigint,
    last_error      text,
    result          jsonb,
    idempotency_key text        unique,
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    constraint payload_is_object check (jsonb_typeof(payload) = 'object')
);

-- Dispatch: due PENDING and FAILED tasks, highest priority first, then oldest run_at.
create index tasks_dispatch on tasks (status, priority desc, run_at);
-- Listing: newest first with a (created_at, id) keyset cursor, optionally by status or type.
create index tasks_newest on tasks (created_at desc, id desc);
create index tasks_status_newest on tasks (status, created_at desc, id desc);
create index tasks_type_newest on tasks (type, created_at desc, id desc);

-- The newest fencing token PostgreSQL has seen per lock; a write with an older token is refused.
create table fences (
    name  text   primary key,
    token bigint not null
);
