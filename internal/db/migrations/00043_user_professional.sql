-- +goose Up
-- The professional a user is, if any: a staff user's reports show that
-- professional's numbers (docs/reports.md).
ALTER TABLE users ADD COLUMN professional_id BIGINT REFERENCES professionals(id);

-- +goose Down
ALTER TABLE users DROP COLUMN professional_id;
