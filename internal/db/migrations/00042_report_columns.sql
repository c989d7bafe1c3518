-- +goose Up
-- Reports (docs/reports.md). confirmed_at is when an appointment's
-- confirmation_status last became confirmed, so a report can say how long
-- confirming took: calendar.SetConfirmationBy, the one rule every door
-- (a reply, the manage link, staff by phone) confirms through, sets it.
-- Rows confirmed before this migration have none, and nor do appointments
-- booked already confirmed (a waiting-list seat): nothing was waited for.
ALTER TABLE appointments ADD COLUMN confirmed_at BIGINT;
-- The reports read a period of an account's appointments by start, and of
-- its outbox, clients and card events by creation; the outbox index covers
-- the messages section (channel, status) without reading the rows.
CREATE INDEX appointments_start ON appointments (account_id, start_at);
CREATE INDEX appointments_created ON appointments (account_id, created_at);
CREATE INDEX outbox_created ON outbox (account_id, created_at, kind, channel, status);
CREATE INDEX clients_created ON clients (account_id, created_at);
CREATE INDEX card_events_created ON card_events (account_id, created_at);

-- +goose Down
DROP INDEX card_events_created;
DROP INDEX clients_created;
DROP INDEX outbox_created;
DROP INDEX appointments_created;
DROP INDEX appointments_start;
ALTER TABLE appointments DROP COLUMN confirmed_at;
