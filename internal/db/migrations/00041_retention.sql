-- +goose Up
-- Retention (docs/retention.md): how long an account keeps messages, the
-- outbox, webhook deliveries and the audit log. retention is a JSON object
-- holding only the kinds the account limits ({"messages": "24mo", ...});
-- NULL keeps everything forever. The daily run is claimed by moving
-- retention_next_run_at forward (one worker wins), and leaves what it did in
-- retention_last_run (JSON: when, cut-offs, counts per kind).
ALTER TABLE accounts ADD COLUMN retention TEXT;
ALTER TABLE accounts ADD COLUMN retention_next_run_at BIGINT;
ALTER TABLE accounts ADD COLUMN retention_last_run TEXT;
-- Messages are blanked in (sent_at, id) order per account: without this
-- index every batch would read the account's whole history (messages are
-- indexed by conversation only).
CREATE INDEX messages_retention ON messages (account_id, sent_at, id);
-- Old finished outbox rows (messages and webhook deliveries) are found by
-- age per account.
CREATE INDEX outbox_retention ON outbox (account_id, created_at);

-- +goose Down
DROP INDEX outbox_retention;
DROP INDEX messages_retention;
ALTER TABLE accounts DROP COLUMN retention_last_run;
ALTER TABLE accounts DROP COLUMN retention_next_run_at;
ALTER TABLE accounts DROP COLUMN retention;
