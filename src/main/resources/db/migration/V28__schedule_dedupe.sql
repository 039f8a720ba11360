-- A schedule's dedupe (DESIGN.md, "REST API", "Schedules"): the key and mode (ignore or replace) its occurrences'
-- tasks are submitted with; both null for none. Added without a default: no rewrite of the table.
alter table schedules add column dedupe_key text;
alter table schedules add column dedupe_mode text;
