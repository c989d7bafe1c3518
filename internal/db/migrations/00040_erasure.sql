-- +goose Up
-- Erasure (docs/data-rights.md): when a client's personal data was erased.
-- The row keeps its id (appointments, cards and counts still name it);
-- NULL for a client never erased.
ALTER TABLE clients ADD COLUMN erased_at BIGINT;

-- +goose Down
ALTER TABLE clients DROP COLUMN erased_at;
