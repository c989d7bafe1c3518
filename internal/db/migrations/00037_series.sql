-- +goose Up
-- Series (docs/series.md): weekly recurring bookings made together. Each
-- occurrence is an ordinary appointment naming its series.
CREATE TABLE series (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    created_at BIGINT NOT NULL
);
ALTER TABLE appointments ADD COLUMN series_id BIGINT REFERENCES series(id);
CREATE INDEX appointments_series ON appointments (account_id, series_id);

-- +goose Down
DROP INDEX appointments_series;
ALTER TABLE appointments DROP COLUMN series_id;
DROP TABLE series;
