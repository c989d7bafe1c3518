-- +goose Up
-- The patient API (docs/patient-api.md).
--
-- An account's booking page settings: a JSON object
-- {enabled, verify_phone, embed_origins, services: [service key, ...]};
-- '{}' is a page that is off (verify_phone, when absent, is true).
ALTER TABLE accounts ADD COLUMN booking_page TEXT NOT NULL DEFAULT '{}';

-- One-time codes sent to a patient's phone before booking. Only a salted
-- SHA-256 of the code is kept. A code lives until expires_at, allows a few
-- tries and books once (used_at); the rows also count the codes a phone or
-- a client address asked for in the last hour.
CREATE TABLE verification_codes (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    phone TEXT NOT NULL,
    client_addr TEXT NOT NULL,
    code_salt TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX verification_codes_phone ON verification_codes (account_id, phone, created_at);
CREATE INDEX verification_codes_addr ON verification_codes (account_id, client_addr, created_at);

-- +goose Down
DROP TABLE verification_codes;
ALTER TABLE accounts DROP COLUMN booking_page;
