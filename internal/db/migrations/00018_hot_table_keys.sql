-- +goose Up
-- PostgreSQL checks a foreign key with one lookup per inserted row (an
-- internal query, not a join), which made the key checks most of a 500-row
-- ingest: 7 ms of 10 for 500 cards on the development machine. Every row of
-- these tables is written by the area packages, inside the account's
-- transaction, with ids they resolved in that account, and none of the
-- referenced rows (accounts, clients, pipelines, stages, users) is ever
-- deleted; the keys guarded nothing the code does not. SQLite keeps them:
-- its checks are index probes inside the same process (cheap), and every
-- store test runs on SQLite too, so a wrong id still fails a test.
--pg: ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_account_id_fkey;
--pg: ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_assigned_user_id_fkey;
--pg: ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_client_id_fkey;
--pg: ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_pipeline_id_fkey;
--pg: ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_stage_id_fkey;
--pg: ALTER TABLE card_events DROP CONSTRAINT IF EXISTS card_events_account_id_fkey;
--pg: ALTER TABLE card_events DROP CONSTRAINT IF EXISTS card_events_card_id_fkey;
--pg: ALTER TABLE clients DROP CONSTRAINT IF EXISTS clients_account_id_fkey;
SELECT 1;

-- +goose Down
--pg: ALTER TABLE clients ADD CONSTRAINT clients_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id);
--pg: ALTER TABLE card_events ADD CONSTRAINT card_events_card_id_fkey FOREIGN KEY (card_id) REFERENCES cards(id);
--pg: ALTER TABLE card_events ADD CONSTRAINT card_events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id);
--pg: ALTER TABLE cards ADD CONSTRAINT cards_stage_id_fkey FOREIGN KEY (stage_id) REFERENCES stages(id);
--pg: ALTER TABLE cards ADD CONSTRAINT cards_pipeline_id_fkey FOREIGN KEY (pipeline_id) REFERENCES pipelines(id);
--pg: ALTER TABLE cards ADD CONSTRAINT cards_client_id_fkey FOREIGN KEY (client_id) REFERENCES clients(id);
--pg: ALTER TABLE cards ADD CONSTRAINT cards_assigned_user_id_fkey FOREIGN KEY (assigned_user_id) REFERENCES users(id);
--pg: ALTER TABLE cards ADD CONSTRAINT cards_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id);
SELECT 1;
