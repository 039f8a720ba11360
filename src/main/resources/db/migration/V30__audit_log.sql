-- Who did what (DESIGN.md, "REST API", "Audit log"): one row per change an admin key asked for (a request other than
-- GET, HEAD, OPTIONS or a submission), written once it was answered: the key's name, the request's id (the caller's X-Request-Id, or
-- one made for it), the operation and path, the answer's status and Location. Never a body or a header: a request may
-- carry a secret. Kept as long as the longest-kept finished task (taskfence.retention.*), deleted by retention.
create table audit_log (
    id bigint generated always as identity primary key,
    at timestamptz not null default now(),
    key_name text not null,
    request_id text not null,
    operation text not null,
    method text not null,
    path text not null,
    status int not null,
    location text
);
-- Retention's deletes and the listing's from/to.
create index audit_log_at on audit_log (at);
-- A key's actions, newest first.
create index audit_log_key_name on audit_log (key_name, id);
