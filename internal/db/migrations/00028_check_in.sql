-- +goose Up
-- Check-in (docs/check-in.md): when the patient arrived (the arrived
-- status), and when the status was last changed by the front desk (a change
-- may be undone on its own day only). An arrived appointment still takes
-- its time, so the busy index covers it.
ALTER TABLE appointments ADD COLUMN arrived_at BIGINT;
ALTER TABLE appointments ADD COLUMN status_changed_at BIGINT;
DROP INDEX appointments_busy;
CREATE INDEX appointments_busy ON appointments (account_id, professional_id, end_at, start_at, service_id) WHERE status IN ('booked', 'arrived');

-- +goose Down
DROP INDEX appointments_busy;
CREATE INDEX appointments_busy ON appointments (account_id, professional_id, end_at, start_at, service_id) WHERE status = 'booked';
ALTER TABLE appointments DROP COLUMN status_changed_at;
ALTER TABLE appointments DROP COLUMN arrived_at;
