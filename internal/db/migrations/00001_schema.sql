-- +goose Up
-- The whole Frontdesk schema, shared by SQLite and PostgreSQL. {{ID}} is the
-- engine's auto-assigned integer primary key. Timestamps are BIGINT
-- microseconds since the Unix epoch (UTC); dates are 'YYYY-MM-DD' text; JSON
-- is text. Every tenant-owned row carries account_id, and every lookup index
-- starts with it.

CREATE TABLE accounts (
    id {{ID}},
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    timezone TEXT NOT NULL DEFAULT 'UTC',
    default_region TEXT NOT NULL DEFAULT '',
    notifications TEXT NOT NULL DEFAULT '{}',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT,
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT,
    last_used_at BIGINT
);
CREATE UNIQUE INDEX api_keys_file_key ON api_keys (account_id, file_key) WHERE file_key IS NOT NULL;
CREATE INDEX api_keys_name ON api_keys (account_id, name);

CREATE TABLE users (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    password_hash TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, file_key)
);

CREATE TABLE ai_agents (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, file_key)
);

CREATE TABLE event_types (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    color TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    UNIQUE (account_id, file_key)
);

-- working_hours: {"mon": ["09:00-13:00", ...], ...} in the account timezone.
-- time_off: [{"from": RFC3339, "to": RFC3339}, ...].
CREATE TABLE professionals (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    working_hours TEXT NOT NULL DEFAULT '{}',
    time_off TEXT NOT NULL DEFAULT '[]',
    UNIQUE (account_id, file_key)
);

CREATE TABLE services (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    color TEXT NOT NULL DEFAULT '',
    default_duration_minutes INTEGER NOT NULL DEFAULT 30,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    UNIQUE (account_id, file_key)
);

CREATE TABLE service_professionals (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    service_id BIGINT NOT NULL REFERENCES services(id),
    professional_id BIGINT NOT NULL REFERENCES professionals(id),
    PRIMARY KEY (service_id, professional_id)
);

CREATE TABLE service_event_types (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    service_id BIGINT NOT NULL REFERENCES services(id),
    event_type_id BIGINT NOT NULL REFERENCES event_types(id),
    PRIMARY KEY (service_id, event_type_id)
);

-- Clients are matched by national phone digits (unique per account, whatever
-- the country code), by id, or by e-mail folded to lower case.
CREATE TABLE clients (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT,
    first_name TEXT NOT NULL DEFAULT '',
    last_name TEXT NOT NULL DEFAULT '',
    name_search TEXT NOT NULL DEFAULT '',
    phone_cc INTEGER,
    phone_national TEXT,
    email TEXT,
    email_norm TEXT,
    company TEXT,
    timezone TEXT,
    data TEXT NOT NULL DEFAULT '{}',
    lead_value DOUBLE PRECISION,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX clients_phone ON clients (account_id, phone_national) WHERE phone_national IS NOT NULL;
CREATE INDEX clients_email ON clients (account_id, email_norm) WHERE email_norm IS NOT NULL;
CREATE UNIQUE INDEX clients_file_key ON clients (account_id, file_key) WHERE file_key IS NOT NULL;
CREATE INDEX clients_account ON clients (account_id, id);

CREATE TABLE tags (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    color TEXT NOT NULL DEFAULT '#808080',
    description TEXT,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE client_tags (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    client_id BIGINT NOT NULL REFERENCES clients(id),
    tag_id BIGINT NOT NULL REFERENCES tags(id),
    source TEXT NOT NULL DEFAULT 'api',
    created_at BIGINT NOT NULL,
    PRIMARY KEY (client_id, tag_id)
);

CREATE TABLE appointments (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    client_id BIGINT NOT NULL REFERENCES clients(id),
    service_id BIGINT NOT NULL REFERENCES services(id),
    professional_id BIGINT NOT NULL REFERENCES professionals(id),
    event_type_id BIGINT NOT NULL REFERENCES event_types(id),
    start_at BIGINT NOT NULL,
    end_at BIGINT NOT NULL,
    timezone TEXT NOT NULL DEFAULT 'UTC',
    status TEXT NOT NULL DEFAULT 'booked',
    source TEXT NOT NULL DEFAULT 'api',
    confirmation_status TEXT NOT NULL DEFAULT 'pending',
    notes TEXT NOT NULL DEFAULT '',
    custom_fields TEXT NOT NULL DEFAULT '{}',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX appointments_professional ON appointments (account_id, professional_id, start_at);
CREATE INDEX appointments_client ON appointments (account_id, client_id, start_at);

CREATE TABLE waitlists (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    horizon_days INTEGER NOT NULL DEFAULT 30,
    run_every_seconds INTEGER NOT NULL DEFAULT 900,
    seat_ttl_seconds INTEGER NOT NULL DEFAULT 7200,
    max_offers INTEGER NOT NULL DEFAULT 3,
    deleted_at BIGINT,
    last_run_at BIGINT,
    next_run_at BIGINT,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, file_key)
);

CREATE TABLE waitlist_services (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    waitlist_id BIGINT NOT NULL REFERENCES waitlists(id),
    service_id BIGINT NOT NULL REFERENCES services(id),
    PRIMARY KEY (waitlist_id, service_id)
);

-- Open statuses: waiting, queued, snoozed. Resolved: booked, removed, expired.
CREATE TABLE waitlist_entries (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    waitlist_id BIGINT NOT NULL REFERENCES waitlists(id),
    client_id BIGINT NOT NULL REFERENCES clients(id),
    service_id BIGINT NOT NULL REFERENCES services(id),
    status TEXT NOT NULL DEFAULT 'waiting',
    priority INTEGER NOT NULL DEFAULT 2,
    source TEXT NOT NULL DEFAULT 'api',
    preferred_professional_id BIGINT REFERENCES professionals(id),
    earliest_date TEXT,
    latest_date TEXT,
    time_preference TEXT NOT NULL DEFAULT 'any',
    notes TEXT NOT NULL DEFAULT '',
    queue_attempts INTEGER NOT NULL DEFAULT 0,
    flagged_for_review BOOLEAN NOT NULL DEFAULT FALSE,
    snooze_until BIGINT,
    queued_at BIGINT,
    seat_expires_at BIGINT,
    resolved_at BIGINT,
    resolution_reason TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
-- At most one open entry per (client, service), whatever the code does.
CREATE UNIQUE INDEX waitlist_entries_open ON waitlist_entries (account_id, client_id, service_id)
    WHERE status IN ('waiting', 'queued', 'snoozed');
CREATE INDEX waitlist_entries_list ON waitlist_entries (account_id, waitlist_id, service_id, status);

CREATE TABLE disposition_tags (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    color TEXT NOT NULL DEFAULT '',
    UNIQUE (account_id, file_key)
);

CREATE TABLE pipelines (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (account_id, file_key)
);

-- allowed_targets: NULL allows any move out of the stage; a JSON array of
-- stage ids allows only those ('[]' forbids every move out).
-- automations: JSON array of {kind, template, steps, url, secret}.
CREATE TABLE stages (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    pipeline_id BIGINT NOT NULL REFERENCES pipelines(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    stage_type TEXT NOT NULL DEFAULT 'open',
    position INTEGER NOT NULL,
    color TEXT NOT NULL DEFAULT '',
    is_entry_point BOOLEAN NOT NULL DEFAULT FALSE,
    allowed_targets TEXT,
    automations TEXT NOT NULL DEFAULT '[]',
    UNIQUE (pipeline_id, file_key)
);
CREATE INDEX stages_pipeline ON stages (account_id, pipeline_id, position);

CREATE TABLE input_nodes (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    pipeline_id BIGINT NOT NULL REFERENCES pipelines(id),
    file_key TEXT NOT NULL,
    uuid TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    node_type TEXT NOT NULL DEFAULT 'api',
    is_active BOOLEAN NOT NULL DEFAULT TRUE,
    target_stage_id BIGINT REFERENCES stages(id),
    default_lead_value DOUBLE PRECISION NOT NULL DEFAULT 0,
    assignment_strategy TEXT NOT NULL DEFAULT 'none',
    assignment_pool TEXT NOT NULL DEFAULT '[]',
    round_robin_next INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    UNIQUE (pipeline_id, file_key)
);

-- A card is a client's membership of a pipeline ("client state").
CREATE TABLE cards (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    pipeline_id BIGINT NOT NULL REFERENCES pipelines(id),
    client_id BIGINT NOT NULL REFERENCES clients(id),
    stage_id BIGINT NOT NULL REFERENCES stages(id),
    status TEXT NOT NULL DEFAULT 'active',
    entry_source TEXT NOT NULL DEFAULT 'api',
    lead_value DOUBLE PRECISION,
    assigned_user_id BIGINT REFERENCES users(id),
    added_at BIGINT NOT NULL,
    stage_entered_at BIGINT NOT NULL,
    removed_at BIGINT,
    updated_at BIGINT NOT NULL
);
-- At most one active card per (pipeline, client).
CREATE UNIQUE INDEX cards_active ON cards (pipeline_id, client_id) WHERE status = 'active';
CREATE INDEX cards_stage ON cards (account_id, pipeline_id, stage_id, status);
CREATE INDEX cards_client ON cards (account_id, client_id, status);

-- The timeline of a card: placed, reactivated, moved, removed.
CREATE TABLE card_events (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    card_id BIGINT NOT NULL REFERENCES cards(id),
    kind TEXT NOT NULL,
    from_stage_id BIGINT,
    to_stage_id BIGINT,
    source TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX card_events_card ON card_events (account_id, card_id, id);

CREATE TABLE conversations (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT,
    customer_phone_number TEXT NOT NULL,
    phone_national TEXT,
    status TEXT NOT NULL DEFAULT 'new',
    direction TEXT NOT NULL DEFAULT 'inbound',
    disposition_tag_id BIGINT REFERENCES disposition_tags(id),
    sentiment TEXT,
    summary TEXT NOT NULL DEFAULT '',
    message_count INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    last_message_at BIGINT
);
CREATE UNIQUE INDEX conversations_file_key ON conversations (account_id, file_key) WHERE file_key IS NOT NULL;
CREATE INDEX conversations_created ON conversations (account_id, created_at, id);
CREATE INDEX conversations_updated ON conversations (account_id, updated_at, id);
CREATE INDEX conversations_phone ON conversations (account_id, phone_national);

-- sender_kind: client, ai_agent, user, business_app. model, tokens, cost and
-- storage_key are internal and never leave the store.
CREATE TABLE messages (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    conversation_id BIGINT NOT NULL REFERENCES conversations(id),
    file_index INTEGER,
    sender_kind TEXT NOT NULL,
    ai_agent_id BIGINT REFERENCES ai_agents(id),
    user_id BIGINT REFERENCES users(id),
    message_type TEXT NOT NULL DEFAULT 'text',
    content TEXT NOT NULL DEFAULT '',
    media TEXT,
    reply_to_id BIGINT,
    model TEXT,
    tokens INTEGER,
    cost DOUBLE PRECISION,
    storage_key TEXT,
    sent_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX messages_conversation ON messages (conversation_id, sent_at, id);
CREATE UNIQUE INDEX messages_file_index ON messages (conversation_id, file_index) WHERE file_index IS NOT NULL;

CREATE TABLE webhooks (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    url TEXT NOT NULL,
    events TEXT NOT NULL DEFAULT '[]',
    secret TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    UNIQUE (account_id, file_key)
);

-- Durable jobs, enqueued in the transaction of the write that causes them.
CREATE TABLE jobs (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    kind TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 10,
    run_at BIGINT NOT NULL,
    locked_until BIGINT,
    last_error TEXT,
    source_type TEXT,
    source_id BIGINT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX jobs_due ON jobs (status, run_at);

-- What automations and notifications sent (or will send), per account.
CREATE TABLE outbox (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    kind TEXT NOT NULL,
    channel TEXT NOT NULL,
    recipient TEXT NOT NULL DEFAULT '',
    client_id BIGINT,
    body TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    scheduled_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    source_type TEXT NOT NULL DEFAULT '',
    source_id BIGINT
);
CREATE INDEX outbox_account ON outbox (account_id, id);

-- +goose Down
DROP TABLE outbox;
DROP TABLE jobs;
DROP TABLE webhooks;
DROP TABLE messages;
DROP TABLE conversations;
DROP TABLE card_events;
DROP TABLE cards;
DROP TABLE input_nodes;
DROP TABLE stages;
DROP TABLE pipelines;
DROP TABLE disposition_tags;
DROP TABLE waitlist_entries;
DROP TABLE waitlist_services;
DROP TABLE waitlists;
DROP TABLE appointments;
DROP TABLE client_tags;
DROP TABLE tags;
DROP TABLE clients;
DROP TABLE service_event_types;
DROP TABLE service_professionals;
DROP TABLE services;
DROP TABLE professionals;
DROP TABLE event_types;
DROP TABLE ai_agents;
DROP TABLE users;
DROP TABLE api_keys;
DROP TABLE accounts;
