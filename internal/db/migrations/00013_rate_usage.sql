-- +goose Up
-- Requests admitted per rate-limit bucket (an API key) by each server
-- instance, per time window, so that instances sharing a PostgreSQL database
-- hold one limit between them (internal/ratelimit). Each instance adds its
-- own count every sync and reads the others'; rows older than two windows
-- are swept. per_second and burst are the bucket's limit when last written,
-- so an instance that has not served the key yet can still debit it.
CREATE TABLE rate_usage (
    bucket TEXT NOT NULL,
    instance TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    used BIGINT NOT NULL,
    per_second DOUBLE PRECISION NOT NULL,
    burst BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (bucket, instance, window_start)
);
CREATE INDEX rate_usage_window ON rate_usage (window_start);

-- +goose Down
DROP TABLE rate_usage;
