-- +goose Up
-- Quick replies (docs/inbox.md): short texts an account's team inserts into
-- a reply from the inbox, kept by owners in Settings. Rows are deleted, so
-- they are named by a random uuid, never by an id SQLite could hand out
-- again (docs/api-notes.md, "Ids").
CREATE TABLE quick_replies (
    uuid TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX quick_replies_account ON quick_replies (account_id, body);

-- +goose Down
DROP INDEX quick_replies_account;
DROP TABLE quick_replies;
