-- +goose Up
-- Manage links (docs/manage-links.md): the token of an appointment's link
-- is derived from FRONTDESK_SECRET_KEY and never stored; only its SHA-256
-- digest is, so an incoming token finds its appointment while a copy of the
-- database alone cannot rebuild any link. A row is written the first time
-- a link is handed out.
CREATE TABLE manage_links (
    digest TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    appointment_id BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX manage_links_appointment ON manage_links (account_id, appointment_id);

-- +goose Down
DROP TABLE manage_links;
