-- +goose Up
-- Every attempt of every job (webhook deliveries show their history from it).
CREATE TABLE job_attempts (
    id {{ID}},
    job_id BIGINT NOT NULL REFERENCES jobs(id),
    attempt INTEGER NOT NULL,
    at BIGINT NOT NULL,
    ok BOOLEAN NOT NULL,
    error TEXT
);
CREATE INDEX job_attempts_job ON job_attempts (job_id, attempt);
-- The outbox message a delivery job sends.
ALTER TABLE jobs ADD COLUMN outbox_id BIGINT;
CREATE INDEX jobs_outbox ON jobs (outbox_id);

-- +goose Down
DROP INDEX jobs_outbox;
ALTER TABLE jobs DROP COLUMN outbox_id;
DROP TABLE job_attempts;
