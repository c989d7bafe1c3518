package pipeline

import (
	"context"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// assignment is an input node's rule for who gets new cards.
type assignment struct {
	nodeID   int64
	strategy string // none, round_robin, least_loaded
	pool     []int64
}

// pick returns n assignees (nil entries for "none"). It runs inside the
// batch's transaction, which holds the node's lock, so the round-robin
// cursor and the load counts cannot race.
func (a *assignment) pick(ctx context.Context, tx *db.Tx, acct account.Account, pipelineID int64, n int) ([]*int64, error) {
	out := make([]*int64, n)
	if len(a.pool) == 0 || a.strategy == "none" || a.strategy == "" {
		return out, nil
	}
	switch a.strategy {
	case "round_robin":
		// One statement moves the cursor past these n and returns where it
		// stopped; the first of them is n before that.
		l := len(a.pool)
		var after int
		if err := tx.QueryRow(ctx, `INSERT INTO input_node_cursors (account_id, node_id, next_index) VALUES (?, ?, ?)
			ON CONFLICT (account_id, node_id) DO UPDATE SET next_index = (input_node_cursors.next_index + ?) % ?
			RETURNING next_index`, acct.ID, a.nodeID, n%l, n%l, l).Scan(&after); err != nil {
			return nil, fmt.Errorf("round robin cursor: %w", err)
		}
		next := ((after-n)%l + l) % l
		for i := range out {
			id := a.pool[(next+i)%l]
			out[i] = &id
		}
	case "least_loaded":
		load := make(map[int64]int, len(a.pool))
		in, args := db.In(a.pool)
		rows, err := tx.Query(ctx, `SELECT assigned_user_id, COUNT(*) FROM cards
			WHERE account_id = ? AND status = 'active' AND assigned_user_id IN `+in+` GROUP BY assigned_user_id`,
			append([]any{acct.ID}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var c int
			if err := rows.Scan(&id, &c); err != nil {
				rows.Close()
				return nil, err
			}
			load[id] = c
		}
		rows.Close()
		for i := range out {
			best := a.pool[0]
			for _, u := range a.pool[1:] {
				if load[u] < load[best] {
					best = u
				}
			}
			load[best]++
			id := best
			out[i] = &id
		}
	}
	return out, nil
}
