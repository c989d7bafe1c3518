-- +goose Up
-- Chat listing: sort_by=last_message_at pages through this index like
-- created_at and updated_at do through theirs (00001).
CREATE INDEX conversations_last_message ON conversations (account_id, last_message_at, id);

-- +goose Down
DROP INDEX conversations_last_message;
