-- +goose Up
-- A patient's DNI/NIE and insurer (docs/patient-fields.md): empty when not
-- known. national_id is stored normalised (contact.NationalID: upper case,
-- no spaces or dashes) and is part of clients.search_text, which every
-- write of it refreshes; no client stored before has one, so search_text
-- needs no backfill.
ALTER TABLE clients ADD COLUMN national_id TEXT NOT NULL DEFAULT '';
ALTER TABLE clients ADD COLUMN insurer TEXT NOT NULL DEFAULT '';
ALTER TABLE clients ADD COLUMN insurance_policy TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE clients DROP COLUMN insurance_policy;
ALTER TABLE clients DROP COLUMN insurer;
ALTER TABLE clients DROP COLUMN national_id;
