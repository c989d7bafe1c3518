-- +goose Up
-- Fewer index entries for the rows every ingest batch and every message
-- write (docs/performance.md, "Index entries per row").
-- jobs_outbox and jobs_source hold only the jobs their lookups ask for: a
-- delivery job by its message (outbox_id set: retention, erasure), a
-- booking's jobs (source_type 'booking': the withdrawal of a cancelled or
-- moved booking's messages). The on-arrival jobs a batch creates, one per
-- placed row, have neither and skip both.
DROP INDEX jobs_outbox;
CREATE INDEX jobs_outbox ON jobs (outbox_id) WHERE outbox_id IS NOT NULL;
DROP INDEX jobs_source;
CREATE INDEX jobs_source ON jobs (account_id, source_type, source_id) WHERE source_type = 'booking';
-- outbox_retention is the first two columns of outbox_created, which serves
-- the retention's range as well.
DROP INDEX outbox_retention;
-- On PostgreSQL the primary key of outbox is (account_id, id), the columns
-- of outbox_account; SQLite keeps it (its primary key is the rowid alone).
--pg: DROP INDEX IF EXISTS outbox_account;
SELECT 1;

-- +goose Down
--pg: CREATE INDEX IF NOT EXISTS outbox_account ON outbox (account_id, id);
CREATE INDEX outbox_retention ON outbox (account_id, created_at);
DROP INDEX jobs_source;
CREATE INDEX jobs_source ON jobs (account_id, source_type, source_id);
DROP INDEX jobs_outbox;
CREATE INDEX jobs_outbox ON jobs (outbox_id);
SELECT 1;
