-- Remote task types an admin declared through the API (PUT /api/v1/types/{type}; DESIGN.md, "Remote workers"),
-- beside those of the configuration: kept here so that every replica, whichever answered the admin, knows them.
-- schema: the JSON Schema the type's payloads must meet at submission, or null for none.
create table remote_types (
    type        text        primary key check (type ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
    schema      jsonb,
    declared_by text,
    declared_at timestamptz not null default now()
);
