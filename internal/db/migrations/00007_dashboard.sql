-- +goose Up
-- Dashboard sign-in sessions. The cookie holds a random 32-byte token; only
-- its SHA-256 is stored, so a leaked table cannot be replayed as cookies.
-- csrf_token is the per-session token every dashboard form carries.
-- A session ends at expires_at (absolute) or when last_seen_at is older
-- than the idle timeout, whichever comes first.
CREATE TABLE dashboard_sessions (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    user_id BIGINT NOT NULL REFERENCES users(id),
    token_hash TEXT NOT NULL UNIQUE,
    csrf_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (account_id, user_id);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);

-- +goose Down
DROP TABLE dashboard_sessions;
