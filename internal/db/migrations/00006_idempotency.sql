-- +goose Up
-- Responses stored for Idempotency-Key replays (24 h).
CREATE TABLE idempotency_keys (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    idem_key TEXT NOT NULL,
    route TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'running',
    response_status INTEGER,
    response_type TEXT,
    response_body TEXT,
    created_at BIGINT NOT NULL,
    locked_until BIGINT NOT NULL,
    PRIMARY KEY (account_id, idem_key, route)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
