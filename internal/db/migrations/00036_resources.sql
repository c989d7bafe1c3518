-- +goose Up
-- Rooms and equipment (docs/rooms.md): an account's resources, named by
-- their workspace-file key; a service needs one of a kind (resource_kind
-- room or equipment) or one of a list (resource_kind any_of, the list in
-- service_resources), '' nothing, so the catalog's one services query tells
-- which services need one; an appointment holds the one it was given
-- (resource_id, NULL when its service needs none); maintenance is resource
-- time off.
CREATE TABLE resources (
    id {{ID}},
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    file_key TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL DEFAULT 0,
    UNIQUE (account_id, file_key)
);
ALTER TABLE services ADD COLUMN resource_kind TEXT NOT NULL DEFAULT '';
CREATE TABLE service_resources (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    service_id BIGINT NOT NULL REFERENCES services(id),
    resource_id BIGINT NOT NULL REFERENCES resources(id),
    PRIMARY KEY (service_id, resource_id)
);
CREATE INDEX service_resources_account ON service_resources (account_id, service_id);
ALTER TABLE appointments ADD COLUMN resource_id BIGINT REFERENCES resources(id);
CREATE INDEX appointments_resource ON appointments (account_id, resource_id, start_at);
CREATE TABLE resource_time_off (
    account_id BIGINT NOT NULL REFERENCES accounts(id),
    resource_id BIGINT NOT NULL REFERENCES resources(id),
    start_at BIGINT NOT NULL,
    end_at BIGINT NOT NULL
);
CREATE INDEX resource_time_off_resource ON resource_time_off (account_id, resource_id, end_at);

-- +goose Down
DROP INDEX resource_time_off_resource;
DROP TABLE resource_time_off;
DROP INDEX appointments_resource;
ALTER TABLE appointments DROP COLUMN resource_id;
DROP INDEX service_resources_account;
DROP TABLE service_resources;
ALTER TABLE services DROP COLUMN resource_kind;
DROP TABLE resources;
