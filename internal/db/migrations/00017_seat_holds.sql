-- +goose Up
-- A seat offer names one concrete slot and holds it until seat_expires_at
-- (docs/contract.md, Seat offers): while the entry is queued and the
-- hold has not expired, the slot engine treats it as busy.
ALTER TABLE waitlist_entries ADD COLUMN offer_professional_id BIGINT;
ALTER TABLE waitlist_entries ADD COLUMN offer_start_at BIGINT;
ALTER TABLE waitlist_entries ADD COLUMN offer_end_at BIGINT;
-- When the last offer went out: kept after it expires or is released, so a
-- late "yes" is answered "no longer available" instead of being ignored.
ALTER TABLE waitlist_entries ADD COLUMN offered_at BIGINT;
CREATE INDEX waitlist_entries_holds ON waitlist_entries (account_id, offer_professional_id, offer_start_at);

-- +goose Down
DROP INDEX waitlist_entries_holds;
ALTER TABLE waitlist_entries DROP COLUMN offered_at;
ALTER TABLE waitlist_entries DROP COLUMN offer_end_at;
ALTER TABLE waitlist_entries DROP COLUMN offer_start_at;
ALTER TABLE waitlist_entries DROP COLUMN offer_professional_id;
