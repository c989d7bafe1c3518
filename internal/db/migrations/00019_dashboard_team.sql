-- +goose Up
-- The dashboard's team features: roles, languages, unread, assignment, audit.
-- Team roles: an owner changes settings; staff run the day. Users from the
-- workspace file keep full access (owner) unless the file says otherwise.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';
-- A user's own dashboard language ('' follows the account's language).
ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT '';
-- The inbox: who handles a conversation, and when the team last read it
-- (a conversation is unread while its newest client message is later).
ALTER TABLE conversations ADD COLUMN assigned_user_id BIGINT;
ALTER TABLE conversations ADD COLUMN read_at BIGINT;
-- Every change made in the dashboard's settings: who, what, when.
CREATE TABLE audit_log (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    user_id BIGINT,
    user_name TEXT NOT NULL DEFAULT '',
    action TEXT NOT NULL,
    object_type TEXT NOT NULL,
    object_id TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX audit_log_account ON audit_log (account_id, created_at, id);
-- Team invitations by one-time link: only the SHA-256 of the token is kept.
CREATE TABLE invitations (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    email TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    invited_by BIGINT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    accepted_at BIGINT,
    accepted_user_id BIGINT
);
CREATE INDEX invitations_account ON invitations (account_id, created_at);

-- +goose Down
DROP TABLE invitations;
DROP TABLE audit_log;
ALTER TABLE conversations DROP COLUMN read_at;
ALTER TABLE conversations DROP COLUMN assigned_user_id;
ALTER TABLE users DROP COLUMN language;
ALTER TABLE users DROP COLUMN role;
