-- A schedule's timeout (DESIGN.md, "REST API", "Schedules"): the time-out its occurrences' tasks ask for their attempts,
-- in milliseconds, capped at the type's as a submission's is; null for the type's own. Added without a default: no
-- rewrite of the table.
alter table schedules add column timeout_ms bigint check (timeout_ms > 0);
