-- +goose Up
-- Per-account API rate limit (docs/contract.md, Rate limits): NULL means the default
-- (100 requests per second, burst 200); requests_per_second 0 is unlimited.
ALTER TABLE accounts ADD COLUMN rate_per_second DOUBLE PRECISION;
ALTER TABLE accounts ADD COLUMN rate_burst BIGINT;

-- +goose Down
ALTER TABLE accounts DROP COLUMN rate_burst;
ALTER TABLE accounts DROP COLUMN rate_per_second;
