-- +goose Up
-- On PostgreSQL the primary key of clients is (account_id, id) since
-- 00044, so clients_account, the same columns, only cost every insert one
-- more index entry (about a tenth of a 500-row ingest's client insert).
-- SQLite keeps it: its primary key is the rowid alone.
--pg: DROP INDEX IF EXISTS clients_account;
SELECT 1;

-- +goose Down
--pg: CREATE INDEX IF NOT EXISTS clients_account ON clients (account_id, id);
SELECT 1;
