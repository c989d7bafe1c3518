package pipeline

// Reading a board: the clients on a pipeline with their cards, filtered
// and paged as the API lists them.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/clock"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// User is an assignee; Email is null when the user has none (as in chat's
// assigned_users).
type User struct {
	ID    int64   `json:"id"`
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

// CardView is one client of a pipeline as listed (docs/contract.md,
// Pipelines, stages and input nodes).
type CardView struct {
	ClientID       int64           `json:"client_id"`
	CardID         int64           `json:"client_state_id"`
	StageID        int64           `json:"stage_id"`
	StageName      string          `json:"stage_name"`
	LeadValue      *float64        `json:"lead_value"`
	EntrySource    string          `json:"entry_source"`
	AssignedUsers  []User          `json:"assigned_users"`
	AddedAt        string          `json:"added_at"`
	StageEnteredAt string          `json:"stage_entered_at"`
	Client         contact.Summary `json:"client"`
}

// ClientFilter narrows a pipeline's client listing.
type ClientFilter struct {
	StageID       int64 // 0: every stage
	Limit, Offset int
}

// ListClients lists the active cards of a pipeline by stage position, newest
// arrivals in a stage first.
func ListClients(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64, f ClientFilter) ([]CardView, int, error) {
	if err := mustPipeline(ctx, q, acct, pipelineID); err != nil {
		return nil, 0, err
	}
	where, args := "k.account_id = ? AND k.pipeline_id = ? AND k.status = 'active'", []any{acct.ID, pipelineID}
	if f.StageID != 0 {
		where += " AND k.stage_id = ?"
		args = append(args, f.StageID)
	}
	var total int
	if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM cards k WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count cards: %w", err)
	}
	rows, err := q.Query(ctx, `SELECT k.id, k.stage_id, s.name, k.lead_value, k.entry_source, k.added_at, k.stage_entered_at,
			u.id, u.name, u.email, `+contact.Columns+`
		FROM cards k JOIN stages s ON s.account_id = k.account_id AND s.id = k.stage_id JOIN clients c ON c.account_id = k.account_id AND c.id = k.client_id
		LEFT JOIN users u ON u.account_id = k.account_id AND u.id = k.assigned_user_id
		WHERE `+where+` ORDER BY s.position, s.id, k.stage_entered_at DESC, k.id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list cards: %w", err)
	}
	defer rows.Close()
	out := []CardView{}
	for rows.Next() {
		var (
			v              CardView
			lead           sql.NullFloat64
			added, entered int64
			uid            sql.NullInt64
			uname, uemail  sql.NullString
		)
		cl, err := contact.Scan(scanPrefix{rows, []any{&v.CardID, &v.StageID, &v.StageName, &lead, &v.EntrySource, &added, &entered, &uid, &uname, &uemail}})
		if err != nil {
			return nil, 0, err
		}
		if lead.Valid {
			v.LeadValue = &lead.Float64
		}
		v.AssignedUsers = []User{}
		if uid.Valid {
			u := User{ID: uid.Int64, Name: uname.String}
			if uemail.String != "" {
				u.Email = &uemail.String
			}
			v.AssignedUsers = append(v.AssignedUsers, u)
		}
		v.ClientID = cl.ID
		v.Client = cl.Summary()
		v.AddedAt, v.StageEnteredAt = clock.Format(db.Time(added)), clock.Format(db.Time(entered))
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// scanPrefix scans leading columns into prefix and the rest into dest, so
// contact.Scan can read a client that follows other columns.
type scanPrefix struct {
	row    interface{ Scan(...any) error }
	prefix []any
}

func (s scanPrefix) Scan(dest ...any) error { return s.row.Scan(append(s.prefix, dest...)...) }
