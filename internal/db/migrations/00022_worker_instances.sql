-- +goose Up
-- Job workers announce themselves (docs/api-notes.md, "Job workers and
-- crashes"). Every process that runs a worker has a random instance id and
-- beats here every few seconds; a job it claims names it in claimed_by. When
-- an instance's beat is older than the stale window (15 s by default) it is
-- dead, and the jobs it claimed are free again at once rather than after
-- their lease (5 min). Not to be confused with the readiness probe's
-- `heartbeat` table.
CREATE TABLE worker_instances (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL DEFAULT '',
    pid INTEGER NOT NULL DEFAULT 0,
    started_at BIGINT NOT NULL,
    beat_at BIGINT NOT NULL
);
ALTER TABLE jobs ADD COLUMN claimed_by TEXT;

-- send_started_at is committed before a message is handed to its provider.
-- A row still pending with it set is "in doubt": the provider may have the
-- message, its answer was never recorded (the process died mid-call). The
-- next attempt asks the provider first where it can answer (Twilio), else
-- sends again and sets possible_duplicate.
ALTER TABLE outbox ADD COLUMN send_started_at BIGINT;
ALTER TABLE outbox ADD COLUMN possible_duplicate BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE outbox DROP COLUMN possible_duplicate;
ALTER TABLE outbox DROP COLUMN send_started_at;
ALTER TABLE jobs DROP COLUMN claimed_by;
DROP TABLE worker_instances;
