-- Every claim of a task draws the next fencing token of that task (DESIGN.md, "Remote workers"): one more than
-- the claim before it, whatever became of that one (a later, a lease that ran out, a retry by an operator), so a
-- remote worker's own store can refuse a write that carries a lower token than one it has seen. Attempt numbers
-- cannot serve: a handler's "later" gives its attempt back. A new column with a constant default is a change of
-- the catalogue only; the claim sets it in the update it makes anyway (no index names it: the update stays HOT).
alter table tasks add column fencing_token bigint not null default 0;
