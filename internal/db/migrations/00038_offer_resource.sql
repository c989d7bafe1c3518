-- +goose Up
-- A seat offer of a service that needs a room or equipment holds the
-- resource booking would give its slot, with the slot (docs/rooms.md,
-- "Seat offers"): while the entry is queued and the hold has not
-- expired, the slot engine treats that resource as busy over
-- [offer_start_at, offer_end_at). NULL when the service needs none, and
-- cleared whenever the hold is released, expires or is booked.
ALTER TABLE waitlist_entries ADD COLUMN offer_resource_id BIGINT;
CREATE INDEX waitlist_entries_resource_holds ON waitlist_entries (account_id, offer_resource_id, offer_start_at);

-- +goose Down
DROP INDEX waitlist_entries_resource_holds;
ALTER TABLE waitlist_entries DROP COLUMN offer_resource_id;
