-- +goose Up
-- Free-time reads (availability, seat offers) ask for the booked
-- appointments of a set of professionals that end after the window starts
-- and begin before it ends. Keyed on end_at, the scan starts at the window
-- instead of at the professional's first appointment ever, and carrying
-- start_at answers the query from the index alone.
CREATE INDEX appointments_busy ON appointments (account_id, professional_id, end_at, start_at) WHERE status = 'booked';

-- +goose Down
DROP INDEX appointments_busy;
