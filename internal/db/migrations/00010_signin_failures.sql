-- +goose Up
-- Failed dashboard sign-ins, for throttling password guessing: one row per
-- failure, keyed by e-mail and client address, swept once out of the window.
CREATE TABLE signin_failures (
    id {{ID}},
    throttle_key TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX signin_failures_key ON signin_failures (throttle_key, at);
CREATE INDEX signin_failures_at ON signin_failures (at);

-- +goose Down
DROP TABLE signin_failures;
