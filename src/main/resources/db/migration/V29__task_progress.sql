-- Progress from a running task (DESIGN.md, "Task lifecycle", "Progress"): the latest report of the task's current
-- attempt (a JSON object of at most 4 KiB, checked where it is written) and when it was written; both null until its
-- handler or remote worker reports, and cleared by the next claim. Written at most once a second per task by each
-- replica, under the claim's condition, leaving updated_at alone. Columns without a default are added without
-- rewriting the table; no index names them, so a report is a HOT update and a task that reports nothing pays nothing.
alter table tasks add column progress jsonb;
alter table tasks add column progress_at timestamptz;
