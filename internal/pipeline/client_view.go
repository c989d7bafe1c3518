package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ClientCard is one card of a client as the client's page lists it: which
// pipeline, which stage, and whether it is still active.
type ClientCard struct {
	CardID         int64
	PipelineID     int64
	PipelineName   string
	StageName      string
	StageType      string
	Status         string // "active" or "removed"
	AddedAt        time.Time
	StageEnteredAt time.Time
	RemovedAt      *time.Time
}

// ClientCards lists a client's cards on every pipeline, active ones first,
// then by the time they entered their stage, newest first. A client of
// another account has none.
func ClientCards(ctx context.Context, q db.Querier, acct account.Account, clientID int64) ([]ClientCard, error) {
	rows, err := q.Query(ctx, `SELECT k.id, p.id, p.name, s.name, s.stage_type, k.status, k.added_at, k.stage_entered_at, k.removed_at
		FROM cards k JOIN pipelines p ON p.account_id = k.account_id AND p.id = k.pipeline_id JOIN stages s ON s.account_id = k.account_id AND s.id = k.stage_id
		WHERE k.account_id = ? AND k.client_id = ?
		ORDER BY CASE WHEN k.status = 'active' THEN 0 ELSE 1 END, k.stage_entered_at DESC, k.id DESC LIMIT 200`, acct.ID, clientID)
	if err != nil {
		return nil, fmt.Errorf("client cards: %w", err)
	}
	defer rows.Close()
	var out []ClientCard
	for rows.Next() {
		var (
			c              ClientCard
			added, entered int64
			removed        sql.NullInt64
		)
		if err := rows.Scan(&c.CardID, &c.PipelineID, &c.PipelineName, &c.StageName, &c.StageType, &c.Status, &added, &entered, &removed); err != nil {
			return nil, err
		}
		c.AddedAt, c.StageEnteredAt = db.Time(added), db.Time(entered)
		if removed.Valid {
			t := db.Time(removed.Int64)
			c.RemovedAt = &t
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
