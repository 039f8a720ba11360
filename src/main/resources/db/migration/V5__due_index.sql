-- Dispatch takes the due tasks, highest priority then oldest run_at first, a batch at a time. An index
-- over PENDING and FAILED rows only gives it that order by reading just the batch: the old index led with
-- status, so two statuses meant sorting the whole backlog for every batch. Rows in any other status are
-- not in it, so their transitions do not write to it.
drop index tasks_dispatch;
create index tasks_due on tasks (priority desc, run_at) where status in ('PENDING', 'FAILED');
