-- +goose Up
-- Reports (docs/reports.md). confirmed_at is when an appointment's
-- confirmation_status last became confirmed, so a report can say how long
-- confirming took. The database fills it on every change of
-- confirmation_status to confirmed, whichever door made it (a reply, the
-- manage link, staff by phone): it is the time the change wrote into
-- updated_at. Rows confirmed before this migration have none, and nor do
-- appointments booked already confirmed (a waiting-list seat): nothing was
-- waited for.
ALTER TABLE appointments ADD COLUMN confirmed_at BIGINT;
--pg: CREATE FUNCTION appointments_confirmed_at() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.confirmed_at := NEW.updated_at; RETURN NEW; END $$;
--pg: CREATE TRIGGER appointments_confirmed_at BEFORE UPDATE OF confirmation_status ON appointments FOR EACH ROW WHEN (NEW.confirmation_status = 'confirmed' AND OLD.confirmation_status IS DISTINCT FROM 'confirmed') EXECUTE FUNCTION appointments_confirmed_at();
--sqlite: CREATE TRIGGER appointments_confirmed_at AFTER UPDATE OF confirmation_status ON appointments FOR EACH ROW WHEN NEW.confirmation_status = 'confirmed' AND OLD.confirmation_status IS NOT 'confirmed' BEGIN UPDATE appointments SET confirmed_at = NEW.updated_at WHERE id = NEW.id; END;
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
--pg: DROP TRIGGER appointments_confirmed_at ON appointments;
--pg: DROP FUNCTION appointments_confirmed_at();
--sqlite: DROP TRIGGER appointments_confirmed_at;
ALTER TABLE appointments DROP COLUMN confirmed_at;
