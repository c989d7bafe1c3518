-- +goose Up
-- Sign-in throttling counters, one row per throttle key ("email|address" or
-- "addr|address"): n attempts since window_start (Unix µs). The dashboard
-- counts an attempt and reads the count in one upsert before it checks the
-- password, so parallel guesses serialise on the row (PostgreSQL's row lock,
-- SQLite's write lock) instead of all reading the same old count. Rows whose
-- window has passed are swept.
CREATE TABLE signin_attempts (
    throttle_key TEXT PRIMARY KEY,
    n BIGINT NOT NULL,
    window_start BIGINT NOT NULL
);
CREATE INDEX signin_attempts_window ON signin_attempts (window_start);

-- The per-failure rows of 00010 are replaced by the counters above.
DROP TABLE signin_failures;

-- +goose Down
CREATE TABLE signin_failures (
    id {{ID}},
    throttle_key TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX signin_failures_key ON signin_failures (throttle_key, at);
CREATE INDEX signin_failures_at ON signin_failures (at);
DROP TABLE signin_attempts;
