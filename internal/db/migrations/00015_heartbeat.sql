-- +goose Up
-- Readiness probes write here (db.Heartbeat): a database that answers
-- reads but refuses writes (a full disk, a read-only replica) is not ready.
CREATE TABLE heartbeat (
    id {{ID}},
    beat_at BIGINT NOT NULL,
    pad TEXT NOT NULL
);

-- +goose Down
DROP TABLE heartbeat;
