-- +goose Up
-- Booking rules (docs/booking-rules.md): the account's, and a service's
-- overriding them field by field. A JSON object holding only the rules set
-- at that level ({"min_notice": "2h", "buffer_after": 10, ...}); '{}' sets
-- none, so every default holds.
ALTER TABLE accounts ADD COLUMN booking_rules TEXT NOT NULL DEFAULT '{}';
ALTER TABLE services ADD COLUMN booking_rules TEXT NOT NULL DEFAULT '{}';
-- The slot engine widens each booked appointment by its service's buffers:
-- the busy index carries the service, so reading a window's busy time stays
-- an index-only scan.
DROP INDEX appointments_busy;
CREATE INDEX appointments_busy ON appointments (account_id, professional_id, end_at, start_at, service_id) WHERE status = 'booked';

-- +goose Down
DROP INDEX appointments_busy;
CREATE INDEX appointments_busy ON appointments (account_id, professional_id, end_at, start_at) WHERE status = 'booked';
ALTER TABLE services DROP COLUMN booking_rules;
ALTER TABLE accounts DROP COLUMN booking_rules;
