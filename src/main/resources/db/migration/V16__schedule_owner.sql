-- A schedule belongs to the API key that made it (DESIGN.md, "Schedules"): its occurrences are that key's tasks, held
-- to its quota and taking its turns at dispatch. Null for a schedule made before V16 or with authentication off: its
-- occurrences have no owner, as before.
alter table schedules add column owner text;
