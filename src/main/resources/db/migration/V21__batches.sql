-- Batches (DESIGN.md, "Batches"): tasks submitted as one batch, whose then task runs once after every one of them
-- has ended. An item's end is appended to batch_item_ends by a trigger, in the transaction that ends it, whichever
-- statement made it; the fenced batches job folds the ends into the counts and releases the then task of a closed
-- batch whose items have all ended. No transaction that ends an item writes a row another one writes too: items of
-- one batch end on every replica at once, and a counter row updated by each would make them wait for one another.

create table batches (
    id           uuid primary key,
    owner        text,
    then_task_id uuid        not null,
    -- Tasks added to the batch, and how many of them are SUCCEEDED, DEAD or CANCELLED as of the last fold.
    items        int         not null default 0,
    succeeded    int         not null default 0,
    dead         int         not null default 0,
    cancelled    int         not null default 0,
    open         boolean     not null,
    created_at   timestamptz not null default now(),
    closed_at    timestamptz,
    completed_at timestamptz
);
create unique index batches_then_task on batches (then_task_id);
create index batches_created on batches (created_at desc, id);
-- The batches the job looks at each run, and those retention looks at.
create index batches_incomplete on batches (id) where completed_at is null;
create index batches_completed on batches (completed_at) where completed_at is not null;

-- An item's batch; null for every other task. Never updated, so the index leaves updates HOT.
alter table tasks add column batch_id uuid;
create index tasks_batch on tasks (batch_id) where batch_id is not null;

-- An item entered a status it ends in, or left one (a DEAD item retried): appended, never updated, folded and
-- deleted by the batches job.
create table batch_item_ends (
    batch_id    uuid not null,
    from_status text not null,
    to_status   text not null
);
create index batch_item_ends_batch on batch_item_ends (batch_id);

create function batch_item_ended() returns trigger language plpgsql set search_path from current as $$
begin
    insert into batch_item_ends (batch_id, from_status, to_status) values (new.batch_id, old.status, new.status);
    return null;
end $$;
create trigger batch_item_ended after update of status on tasks for each row
    when (new.batch_id is not null and old.status is distinct from new.status
          and (new.status in ('SUCCEEDED', 'DEAD', 'CANCELLED') or old.status in ('SUCCEEDED', 'DEAD', 'CANCELLED')))
    execute function batch_item_ended();
