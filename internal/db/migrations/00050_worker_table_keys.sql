-- +goose Up
-- The tables the job worker writes many rows of at once lose their foreign
-- keys on PostgreSQL, for the reason 00047 gave for the batch tables: each
-- key is checked with a locking lookup per inserted row. Every message an
-- automation sends writes a job attempt (keyed to its job), a message
-- (keyed to its account and conversation) and often a conversation (keyed
-- to its account); every one of those rows locked its account's single row
-- against key changes, so concurrent group commits shared that lock (a
-- multixact) many times a second. A worker draining a backlog on its own
-- completed 12-13 % more jobs a second, with 10 % less CPU per job, without
-- them (docs/performance.md, "Sending a round of messages"). Every row is
-- written inside its account's transaction with ids resolved in that
-- account; no account, conversation or message is ever deleted, and
-- retention deletes a job's attempts before the job. SQLite keeps every key.
--citus: SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
--pg: ALTER TABLE job_attempts DROP CONSTRAINT IF EXISTS job_attempts_job_id_fkey;
--pg: ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_account_id_fkey;
--pg: ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_conversation_id_fkey;
--pg: ALTER TABLE conversations DROP CONSTRAINT IF EXISTS conversations_account_id_fkey;
SELECT 1;

-- +goose Down
--citus: SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
--pg: ALTER TABLE conversations ADD CONSTRAINT conversations_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
--pg: ALTER TABLE messages ADD CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (account_id, conversation_id) REFERENCES conversations (account_id, id);
--pg: ALTER TABLE messages ADD CONSTRAINT messages_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
--pg: ALTER TABLE job_attempts ADD CONSTRAINT job_attempts_job_id_fkey FOREIGN KEY (account_id, job_id) REFERENCES jobs (account_id, id);
SELECT 1;
