-- +goose Up
-- API keys display "pk_" and at most min(5, (length - 3) / 4) characters of
-- the key (a 12-character key used to show 10, and the rest could be
-- guessed). The store does not hold a key's length, so prefixes written
-- before are cut to what the shortest accepted key (12 characters) shows:
-- "pk_" and 2 characters. Keys created from now on show up to 8.
UPDATE api_keys SET prefix = substr(prefix, 1, 5) WHERE length(prefix) > 5;

-- +goose Down
-- The characters cut are not kept anywhere: nothing to restore.
SELECT 1;
