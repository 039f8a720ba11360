-- Attempt time-outs (DESIGN.md, "Task lifecycle", "Attempt time-outs"). timeout_ms: the longest one attempt of the
-- task may take, fixed when it is stored (its own, capped at its type's); null for none. timeout_at: when the current
-- claim times out, set by a remote worker's claim only (a replica keeps its own attempts' time-outs): past it the
-- claim's writes are refused and recovery fails the attempt. Columns without a default are added without rewriting
-- the table; no index names them, so the claim that writes timeout_at stays a HOT update. The check is NOT VALID: it
-- holds for every row written from now on, and the existing rows (all null) are not scanned under the table's lock.
alter table tasks add column timeout_ms bigint;
alter table tasks add constraint tasks_timeout_ms_positive check (timeout_ms > 0) not valid;
alter table tasks add column timeout_at timestamptz;
