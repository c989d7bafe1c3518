-- +goose Up
-- An input node's round-robin cursor moves on every batch, so it lives in a
-- per-account table rather than on input_nodes, which Citus copies to every
-- node (a write there reaches them all; docs/scale-out.md). Written the way
-- a migration after 00044 creates a per-account table.
--citus: SET LOCAL citus.multi_shard_modify_mode TO 'sequential';
--sqlite: CREATE TABLE input_node_cursors (account_id BIGINT NOT NULL REFERENCES accounts(id), node_id BIGINT NOT NULL REFERENCES input_nodes(id), next_index INTEGER NOT NULL, PRIMARY KEY (account_id, node_id));
--pg: CREATE TABLE input_node_cursors (account_id BIGINT NOT NULL, node_id BIGINT NOT NULL, next_index INTEGER NOT NULL, PRIMARY KEY (account_id, node_id));
--citus: SELECT create_distributed_table('input_node_cursors', 'account_id');
--pg: ALTER TABLE input_node_cursors ADD FOREIGN KEY (account_id) REFERENCES accounts (id);
--pg: ALTER TABLE input_node_cursors ADD FOREIGN KEY (node_id) REFERENCES input_nodes (id);
INSERT INTO input_node_cursors (account_id, node_id, next_index)
SELECT account_id, id, round_robin_next FROM input_nodes WHERE round_robin_next <> 0;

-- +goose Down
UPDATE input_nodes SET round_robin_next = COALESCE((SELECT c.next_index FROM input_node_cursors c
    WHERE c.account_id = input_nodes.account_id AND c.node_id = input_nodes.id), 0);
DROP TABLE input_node_cursors;
