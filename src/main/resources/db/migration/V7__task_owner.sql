-- Tenants (DESIGN section 7): the name of the API key that submitted the task; null for tasks from before
-- this migration and while authentication is off. A submit key sees and acts on its own tasks only.
alter table tasks add column owner text;

-- Idempotency keys are per owner: the same key from two API keys makes two tasks. coalesce() makes the
-- tasks without an owner one scope of their own (no key name is empty), as NULLS NOT DISTINCT would on
-- PostgreSQL 15+ only. Still partial: most tasks carry no idempotency key.
drop index tasks_idempotency_key;
create unique index tasks_idempotency_key on tasks (coalesce(owner, ''), idempotency_key)
    where idempotency_key is not null;

-- A submit key's listing, newest first, and its quota count. Every status change writes one more index
-- entry for this (status is indexed, so no update is HOT); without it a key's listing would walk the whole
-- table's newest-first index past every other key's tasks. Tasks without an owner are listed by admins only,
-- through tasks_newest, so they stay out of it.
create index tasks_owner_newest on tasks (owner, created_at desc, id desc) where owner is not null;
