-- +goose Up
-- A professional's private calendar feed (docs/calendar-feeds.md): one live
-- feed per professional, so the professional is the key, and making a new
-- link replaces the old row. Only the SHA-256 of the link's token is kept:
-- a database dump gives no working feed URL. Revoking deletes the row, so
-- there is no id to reuse.
CREATE TABLE calendar_feeds (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    professional_id BIGINT NOT NULL REFERENCES professionals(id),
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, professional_id)
);

-- +goose Down
DROP TABLE calendar_feeds;
