-- +goose Up
-- A live (not revoked) API key's name is unique in its account: keys are
-- revoked by name (`frontdesk keys revoke --name`, the dashboard's Revoke),
-- so two live keys with one name could not be told apart. The index makes
-- two racing creates with one name fail on either engine
-- (account.InsertKey turns that into VALIDATION_ERROR; see
-- docs/where-things-live.md, "Rules and where they live").
--
-- Before it, the CLI and workspace files could create such twins: every
-- live twin after the oldest gets "-<id>" appended to its name, so each can
-- be revoked on its own.
UPDATE api_keys SET name = name || '-' || CAST(id AS TEXT)
WHERE revoked_at IS NULL AND EXISTS (
    SELECT 1 FROM api_keys older
    WHERE older.account_id = api_keys.account_id AND older.name = api_keys.name
      AND older.revoked_at IS NULL AND older.id < api_keys.id);
CREATE UNIQUE INDEX api_keys_live_name ON api_keys (account_id, name) WHERE revoked_at IS NULL;

-- +goose Down
DROP INDEX api_keys_live_name;
