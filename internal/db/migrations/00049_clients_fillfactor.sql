-- +goose Up
-- PostgreSQL: leave 15 % of each clients page free, so an update batch
-- that rewrites a client (a merge: names, e-mail, custom fields) can put
-- the new row version on the same page. Such a "heap-only" update writes
-- no index entry; with full pages every rewritten client wrote one entry
-- in each of its four indexes. The clients UPDATE of a 500-row update
-- batch went from 12-14 ms to 7-9 ms (docs/performance.md, "Free space
-- for merges"). Only pages written from now on keep the space; existing
-- pages gain it as they are rewritten. SQLite has no such setting.
--pg: ALTER TABLE clients SET (fillfactor = 85);
SELECT 1;

-- +goose Down
--pg: ALTER TABLE clients RESET (fillfactor);
SELECT 1;
