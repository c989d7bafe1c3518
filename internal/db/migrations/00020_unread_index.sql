-- +goose Up
-- The inbox's unread test (a client message created after the team last
-- read the conversation) runs on every dashboard page, for every open
-- conversation: one index seek each instead of a walk through the
-- conversation's messages (BenchmarkUnreadCount, internal/chat).
CREATE INDEX messages_client_created ON messages (conversation_id, sender_kind, created_at);

-- +goose Down
DROP INDEX messages_client_created;
