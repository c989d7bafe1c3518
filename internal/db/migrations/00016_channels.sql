-- +goose Up
-- Channels (docs/contract.md, Channels): how messages leave and replies come back.

-- The account's language picks the built-in texts; messaging holds
-- {default_channel, routes: {kind: channel key}, quiet_hours: "21:00-09:00"}.
ALTER TABLE accounts ADD COLUMN language TEXT NOT NULL DEFAULT 'es';
ALTER TABLE accounts ADD COLUMN messaging TEXT NOT NULL DEFAULT '{}';

-- credentials is a JSON object sealed with FRONTDESK_SECRET_KEY (never
-- plaintext); templates maps a message kind to {name, language}. The uuid
-- names the channel in callback URLs, so it is unique across accounts: a
-- callback finds its account through it.
CREATE TABLE channels (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    uuid TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    provider TEXT NOT NULL,
    from_address TEXT NOT NULL DEFAULT '',
    api_base TEXT NOT NULL DEFAULT '',
    credentials TEXT NOT NULL DEFAULT '',
    templates TEXT NOT NULL DEFAULT '{}',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX channels_key ON channels (account_id, file_key);

-- A client's consent per channel: opted_out_at is set by STOP/BAJA and
-- cleared by START/ALTA (opted_in_at keeps when).
CREATE TABLE channel_consents (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    client_id BIGINT NOT NULL REFERENCES clients(id),
    channel_id BIGINT NOT NULL REFERENCES channels(id),
    opted_out BOOLEAN NOT NULL,
    opted_out_at BIGINT,
    opted_in_at BIGINT,
    PRIMARY KEY (account_id, client_id, channel_id)
);

ALTER TABLE outbox ADD COLUMN channel_key TEXT;
ALTER TABLE outbox ADD COLUMN channel_id BIGINT;
ALTER TABLE outbox ADD COLUMN provider_message_id TEXT;
ALTER TABLE outbox ADD COLUMN error TEXT;
ALTER TABLE outbox ADD COLUMN delivered_at BIGINT;
ALTER TABLE outbox ADD COLUMN read_at BIGINT;
ALTER TABLE outbox ADD COLUMN segments INTEGER;
-- Status callbacks find their message by the provider's id.
CREATE UNIQUE INDEX outbox_provider_message ON outbox (channel_id, provider_message_id) WHERE provider_message_id IS NOT NULL;
-- "The newest confirmation request sent to that number".
CREATE INDEX outbox_recipient ON outbox (account_id, recipient, kind, sent_at);

-- Conversations opened by a channel belong to it; inbound messages carry the
-- provider's id, unique per channel, so a resent callback adds nothing.
ALTER TABLE conversations ADD COLUMN channel_id BIGINT;
ALTER TABLE messages ADD COLUMN channel_id BIGINT;
ALTER TABLE messages ADD COLUMN provider_message_id TEXT;
CREATE UNIQUE INDEX messages_provider_message ON messages (channel_id, provider_message_id) WHERE provider_message_id IS NOT NULL;
CREATE INDEX conversations_channel_phone ON conversations (account_id, channel_id, phone_national, last_message_at);

-- +goose Down
DROP INDEX conversations_channel_phone;
DROP INDEX messages_provider_message;
ALTER TABLE messages DROP COLUMN provider_message_id;
ALTER TABLE messages DROP COLUMN channel_id;
ALTER TABLE conversations DROP COLUMN channel_id;
DROP INDEX outbox_recipient;
DROP INDEX outbox_provider_message;
ALTER TABLE outbox DROP COLUMN segments;
ALTER TABLE outbox DROP COLUMN read_at;
ALTER TABLE outbox DROP COLUMN delivered_at;
ALTER TABLE outbox DROP COLUMN error;
ALTER TABLE outbox DROP COLUMN provider_message_id;
ALTER TABLE outbox DROP COLUMN channel_id;
ALTER TABLE outbox DROP COLUMN channel_key;
DROP TABLE channel_consents;
DROP TABLE channels;
ALTER TABLE accounts DROP COLUMN messaging;
ALTER TABLE accounts DROP COLUMN language;
