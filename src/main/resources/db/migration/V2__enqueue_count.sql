-- How many times dispatch has moved a task to ENQUEUED: 1 for a task that ran once without loss;
-- more after a failure, a recovery or a manual retry. Operators and tests read it to see double
-- dispatches, which must never happen.
alter table tasks add column enqueues int not null default 0;
