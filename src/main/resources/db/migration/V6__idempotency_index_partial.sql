-- Every status change writes a new row version, and with it an entry in each of the table's indexes
-- (no index may be skipped while status is indexed). Most tasks carry no idempotency key; an index of
-- the keys alone spares each of their transitions one index write. Still unique: a key names one task.
alter table tasks drop constraint tasks_idempotency_key_key;
create unique index tasks_idempotency_key on tasks (idempotency_key) where idempotency_key is not null;
