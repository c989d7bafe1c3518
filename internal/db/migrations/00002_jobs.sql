-- +goose Up
-- Billed usage per account and month (messages sent by automations and
-- booking notifications).
CREATE TABLE usage_counters (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    metric TEXT NOT NULL,
    period TEXT NOT NULL,
    count BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, metric, period)
);
CREATE INDEX jobs_source ON jobs (account_id, source_type, source_id);

-- +goose Down
DROP INDEX jobs_source;
DROP TABLE usage_counters;
