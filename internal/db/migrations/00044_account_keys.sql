-- +goose Up
-- Keys that hold on a cluster distributed by account (docs/scale-out.md):
-- every per-account table's primary key, unique keys and foreign keys
-- between per-account tables include account_id, so each row and all it
-- refers to live on one shard. The global lookup tables (accounts,
-- api_keys, channels, input_nodes, dashboard_sessions, invitations) keep
-- their keys. SQLite keeps its table keys (it cannot alter them in place)
-- and gets the unique indexes the upserts name.
ALTER TABLE job_attempts ADD COLUMN account_id BIGINT;
UPDATE job_attempts SET account_id = (SELECT jobs.account_id FROM jobs WHERE jobs.id = job_attempts.job_id);
DELETE FROM job_attempts WHERE account_id IS NULL;
--pg: ALTER TABLE job_attempts ALTER COLUMN account_id SET NOT NULL;
DROP INDEX job_attempts_job;
CREATE INDEX job_attempts_job ON job_attempts (account_id, job_id, attempt);

DROP INDEX cards_active;
CREATE UNIQUE INDEX cards_active ON cards (account_id, pipeline_id, client_id) WHERE status = 'active';
DROP INDEX messages_file_index;
CREATE UNIQUE INDEX messages_file_index ON messages (account_id, conversation_id, file_index) WHERE file_index IS NOT NULL;
DROP INDEX messages_provider_message;
CREATE UNIQUE INDEX messages_provider_message ON messages (account_id, channel_id, provider_message_id) WHERE provider_message_id IS NOT NULL;
DROP INDEX outbox_provider_message;
CREATE UNIQUE INDEX outbox_provider_message ON outbox (account_id, channel_id, provider_message_id) WHERE provider_message_id IS NOT NULL;
--sqlite: CREATE UNIQUE INDEX client_tags_account ON client_tags (account_id, client_id, tag_id);
--sqlite: CREATE UNIQUE INDEX stages_account_key ON stages (account_id, pipeline_id, file_key);

-- PostgreSQL: foreign keys between per-account tables come off, the keys
-- they point at gain account_id, and they come back with it.
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_client_id_fkey;
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_event_type_id_fkey;
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_professional_id_fkey;
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_resource_id_fkey;
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_series_id_fkey;
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_service_id_fkey;
--pg: ALTER TABLE calendar_feeds DROP CONSTRAINT calendar_feeds_professional_id_fkey;
--pg: ALTER TABLE channel_consents DROP CONSTRAINT channel_consents_client_id_fkey;
--pg: ALTER TABLE client_tags DROP CONSTRAINT client_tags_client_id_fkey;
--pg: ALTER TABLE client_tags DROP CONSTRAINT client_tags_tag_id_fkey;
--pg: ALTER TABLE conversations DROP CONSTRAINT conversations_disposition_tag_id_fkey;
--pg: ALTER TABLE dashboard_sessions DROP CONSTRAINT dashboard_sessions_user_id_fkey;
--pg: ALTER TABLE input_nodes DROP CONSTRAINT input_nodes_pipeline_id_fkey;
--pg: ALTER TABLE input_nodes DROP CONSTRAINT input_nodes_target_stage_id_fkey;
--pg: ALTER TABLE job_attempts DROP CONSTRAINT job_attempts_job_id_fkey;
--pg: ALTER TABLE messages DROP CONSTRAINT messages_ai_agent_id_fkey;
--pg: ALTER TABLE messages DROP CONSTRAINT messages_conversation_id_fkey;
--pg: ALTER TABLE messages DROP CONSTRAINT messages_user_id_fkey;
--pg: ALTER TABLE resource_time_off DROP CONSTRAINT resource_time_off_resource_id_fkey;
--pg: ALTER TABLE service_event_types DROP CONSTRAINT service_event_types_event_type_id_fkey;
--pg: ALTER TABLE service_event_types DROP CONSTRAINT service_event_types_service_id_fkey;
--pg: ALTER TABLE service_professionals DROP CONSTRAINT service_professionals_professional_id_fkey;
--pg: ALTER TABLE service_professionals DROP CONSTRAINT service_professionals_service_id_fkey;
--pg: ALTER TABLE service_resources DROP CONSTRAINT service_resources_resource_id_fkey;
--pg: ALTER TABLE service_resources DROP CONSTRAINT service_resources_service_id_fkey;
--pg: ALTER TABLE stages DROP CONSTRAINT stages_pipeline_id_fkey;
--pg: ALTER TABLE users DROP CONSTRAINT users_professional_id_fkey;
--pg: ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_client_id_fkey;
--pg: ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_preferred_professional_id_fkey;
--pg: ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_service_id_fkey;
--pg: ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_waitlist_id_fkey;
--pg: ALTER TABLE waitlist_services DROP CONSTRAINT waitlist_services_service_id_fkey;
--pg: ALTER TABLE waitlist_services DROP CONSTRAINT waitlist_services_waitlist_id_fkey;
--pg: ALTER TABLE ai_agents DROP CONSTRAINT ai_agents_pkey, ADD CONSTRAINT ai_agents_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE appointments DROP CONSTRAINT appointments_pkey, ADD CONSTRAINT appointments_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey, ADD CONSTRAINT audit_log_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE calendar_feeds DROP CONSTRAINT calendar_feeds_token_hash_key, ADD CONSTRAINT calendar_feeds_token_hash_key UNIQUE (account_id, token_hash);
--pg: ALTER TABLE card_events DROP CONSTRAINT card_events_pkey, ADD CONSTRAINT card_events_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE cards DROP CONSTRAINT cards_pkey, ADD CONSTRAINT cards_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE client_tags DROP CONSTRAINT client_tags_pkey, ADD CONSTRAINT client_tags_pkey PRIMARY KEY (account_id, client_id, tag_id);
--pg: ALTER TABLE clients DROP CONSTRAINT clients_pkey, ADD CONSTRAINT clients_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE conversations DROP CONSTRAINT conversations_pkey, ADD CONSTRAINT conversations_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE disposition_tags DROP CONSTRAINT disposition_tags_pkey, ADD CONSTRAINT disposition_tags_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE event_types DROP CONSTRAINT event_types_pkey, ADD CONSTRAINT event_types_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE jobs DROP CONSTRAINT jobs_pkey, ADD CONSTRAINT jobs_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE manage_links DROP CONSTRAINT manage_links_pkey, ADD CONSTRAINT manage_links_pkey PRIMARY KEY (account_id, digest);
--pg: ALTER TABLE messages DROP CONSTRAINT messages_pkey, ADD CONSTRAINT messages_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE outbox DROP CONSTRAINT outbox_pkey, ADD CONSTRAINT outbox_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE pipelines DROP CONSTRAINT pipelines_pkey, ADD CONSTRAINT pipelines_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE professionals DROP CONSTRAINT professionals_pkey, ADD CONSTRAINT professionals_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE quick_replies DROP CONSTRAINT quick_replies_pkey, ADD CONSTRAINT quick_replies_pkey PRIMARY KEY (account_id, uuid);
--pg: ALTER TABLE resources DROP CONSTRAINT resources_pkey, ADD CONSTRAINT resources_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE series DROP CONSTRAINT series_pkey, ADD CONSTRAINT series_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE service_event_types DROP CONSTRAINT service_event_types_pkey, ADD CONSTRAINT service_event_types_pkey PRIMARY KEY (account_id, service_id, event_type_id);
--pg: ALTER TABLE service_professionals DROP CONSTRAINT service_professionals_pkey, ADD CONSTRAINT service_professionals_pkey PRIMARY KEY (account_id, service_id, professional_id);
--pg: ALTER TABLE service_resources DROP CONSTRAINT service_resources_pkey, ADD CONSTRAINT service_resources_pkey PRIMARY KEY (account_id, service_id, resource_id);
--pg: ALTER TABLE services DROP CONSTRAINT services_pkey, ADD CONSTRAINT services_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE stages DROP CONSTRAINT stages_pipeline_id_file_key_key, ADD CONSTRAINT stages_pipeline_id_file_key_key UNIQUE (account_id, pipeline_id, file_key);
--pg: ALTER TABLE stages DROP CONSTRAINT stages_pkey, ADD CONSTRAINT stages_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE tags DROP CONSTRAINT tags_pkey, ADD CONSTRAINT tags_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE users DROP CONSTRAINT users_pkey, ADD CONSTRAINT users_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE verification_codes DROP CONSTRAINT verification_codes_pkey, ADD CONSTRAINT verification_codes_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_pkey, ADD CONSTRAINT waitlist_entries_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE waitlist_services DROP CONSTRAINT waitlist_services_pkey, ADD CONSTRAINT waitlist_services_pkey PRIMARY KEY (account_id, waitlist_id, service_id);
--pg: ALTER TABLE waitlists DROP CONSTRAINT waitlists_pkey, ADD CONSTRAINT waitlists_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD CONSTRAINT webhooks_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE job_attempts DROP CONSTRAINT job_attempts_pkey, ADD CONSTRAINT job_attempts_pkey PRIMARY KEY (account_id, id);
--pg: ALTER TABLE appointments ADD CONSTRAINT appointments_client_id_fkey FOREIGN KEY (account_id, client_id) REFERENCES clients (account_id, id);
--pg: ALTER TABLE appointments ADD CONSTRAINT appointments_event_type_id_fkey FOREIGN KEY (account_id, event_type_id) REFERENCES event_types (account_id, id);
--pg: ALTER TABLE appointments ADD CONSTRAINT appointments_professional_id_fkey FOREIGN KEY (account_id, professional_id) REFERENCES professionals (account_id, id);
--pg: ALTER TABLE appointments ADD CONSTRAINT appointments_resource_id_fkey FOREIGN KEY (account_id, resource_id) REFERENCES resources (account_id, id);
--pg: ALTER TABLE appointments ADD CONSTRAINT appointments_series_id_fkey FOREIGN KEY (account_id, series_id) REFERENCES series (account_id, id);
--pg: ALTER TABLE appointments ADD CONSTRAINT appointments_service_id_fkey FOREIGN KEY (account_id, service_id) REFERENCES services (account_id, id);
--pg: ALTER TABLE calendar_feeds ADD CONSTRAINT calendar_feeds_professional_id_fkey FOREIGN KEY (account_id, professional_id) REFERENCES professionals (account_id, id);
--pg: ALTER TABLE channel_consents ADD CONSTRAINT channel_consents_client_id_fkey FOREIGN KEY (account_id, client_id) REFERENCES clients (account_id, id);
--pg: ALTER TABLE client_tags ADD CONSTRAINT client_tags_client_id_fkey FOREIGN KEY (account_id, client_id) REFERENCES clients (account_id, id);
--pg: ALTER TABLE client_tags ADD CONSTRAINT client_tags_tag_id_fkey FOREIGN KEY (account_id, tag_id) REFERENCES tags (account_id, id);
--pg: ALTER TABLE conversations ADD CONSTRAINT conversations_disposition_tag_id_fkey FOREIGN KEY (account_id, disposition_tag_id) REFERENCES disposition_tags (account_id, id);
--pg: ALTER TABLE dashboard_sessions ADD CONSTRAINT dashboard_sessions_user_id_fkey FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id);
--pg: ALTER TABLE input_nodes ADD CONSTRAINT input_nodes_pipeline_id_fkey FOREIGN KEY (account_id, pipeline_id) REFERENCES pipelines (account_id, id);
--pg: ALTER TABLE input_nodes ADD CONSTRAINT input_nodes_target_stage_id_fkey FOREIGN KEY (account_id, target_stage_id) REFERENCES stages (account_id, id);
--pg: ALTER TABLE job_attempts ADD CONSTRAINT job_attempts_job_id_fkey FOREIGN KEY (account_id, job_id) REFERENCES jobs (account_id, id);
--pg: ALTER TABLE messages ADD CONSTRAINT messages_ai_agent_id_fkey FOREIGN KEY (account_id, ai_agent_id) REFERENCES ai_agents (account_id, id);
--pg: ALTER TABLE messages ADD CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (account_id, conversation_id) REFERENCES conversations (account_id, id);
--pg: ALTER TABLE messages ADD CONSTRAINT messages_user_id_fkey FOREIGN KEY (account_id, user_id) REFERENCES users (account_id, id);
--pg: ALTER TABLE resource_time_off ADD CONSTRAINT resource_time_off_resource_id_fkey FOREIGN KEY (account_id, resource_id) REFERENCES resources (account_id, id);
--pg: ALTER TABLE service_event_types ADD CONSTRAINT service_event_types_event_type_id_fkey FOREIGN KEY (account_id, event_type_id) REFERENCES event_types (account_id, id);
--pg: ALTER TABLE service_event_types ADD CONSTRAINT service_event_types_service_id_fkey FOREIGN KEY (account_id, service_id) REFERENCES services (account_id, id);
--pg: ALTER TABLE service_professionals ADD CONSTRAINT service_professionals_professional_id_fkey FOREIGN KEY (account_id, professional_id) REFERENCES professionals (account_id, id);
--pg: ALTER TABLE service_professionals ADD CONSTRAINT service_professionals_service_id_fkey FOREIGN KEY (account_id, service_id) REFERENCES services (account_id, id);
--pg: ALTER TABLE service_resources ADD CONSTRAINT service_resources_resource_id_fkey FOREIGN KEY (account_id, resource_id) REFERENCES resources (account_id, id);
--pg: ALTER TABLE service_resources ADD CONSTRAINT service_resources_service_id_fkey FOREIGN KEY (account_id, service_id) REFERENCES services (account_id, id);
--pg: ALTER TABLE stages ADD CONSTRAINT stages_pipeline_id_fkey FOREIGN KEY (account_id, pipeline_id) REFERENCES pipelines (account_id, id);
--pg: ALTER TABLE users ADD CONSTRAINT users_professional_id_fkey FOREIGN KEY (account_id, professional_id) REFERENCES professionals (account_id, id);
--pg: ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_client_id_fkey FOREIGN KEY (account_id, client_id) REFERENCES clients (account_id, id);
--pg: ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_preferred_professional_id_fkey FOREIGN KEY (account_id, preferred_professional_id) REFERENCES professionals (account_id, id);
--pg: ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_service_id_fkey FOREIGN KEY (account_id, service_id) REFERENCES services (account_id, id);
--pg: ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_waitlist_id_fkey FOREIGN KEY (account_id, waitlist_id) REFERENCES waitlists (account_id, id);
--pg: ALTER TABLE waitlist_services ADD CONSTRAINT waitlist_services_service_id_fkey FOREIGN KEY (account_id, service_id) REFERENCES services (account_id, id);
--pg: ALTER TABLE waitlist_services ADD CONSTRAINT waitlist_services_waitlist_id_fkey FOREIGN KEY (account_id, waitlist_id) REFERENCES waitlists (account_id, id);
-- Lookups by a token alone (a patient's manage link, a calendar feed).
--pg: CREATE INDEX manage_links_digest ON manage_links (digest);
--pg: CREATE INDEX calendar_feeds_token ON calendar_feeds (token_hash);

-- +goose Down
SELECT 1;
