-- API keys made through the API (DESIGN.md, "REST API", "Keys"); configured keys (taskfence.auth.keys.<name>) are not
-- here. A revoked key's row stays (revoked_at set): its name owns tasks and audit entries, so no other key gets it.
create table api_keys (
    name text primary key,
    role text not null,
    worker_types text[],
    max_unfinished int,
    weight int not null default 1,
    max_priority int,
    rate text,
    allowed_hosts text[],
    -- What the key's callbacks are signed with: the service must read it to sign, so it is kept as is.
    callback_secret text,
    created_by text not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    revoked_at timestamptz
);
-- Each key's secrets as SHA-256 digests, never the secrets: the current one (expires_at null) and, after a rotation,
-- the ones before it until their overlap ends.
create table api_key_secrets (
    digest bytea primary key,
    key_name text not null references api_keys (name),
    created_at timestamptz not null default now(),
    expires_at timestamptz
);
create index api_key_secrets_key_name on api_key_secrets (key_name);
