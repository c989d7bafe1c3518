package pipeline

// Reads and writes the dashboard offers on boards: a card's timeline, the
// team for assignment pools, API input nodes.

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// CardEvent is one line of a card's timeline.
type CardEvent struct {
	Kind      string
	FromStage string
	ToStage   string
	Source    string
	At        time.Time
}

// Card is a card with its client and timeline.
type Card struct {
	ID          int64
	PipelineID  int64
	ClientID    int64
	ClientName  string
	StageName   string
	Status      string
	EntrySource string
	LeadValue   *float64
	AddedAt     time.Time
	Events      []CardEvent
}

// CardTimeline loads one card of a pipeline with its events, oldest first.
func CardTimeline(ctx context.Context, q db.Querier, acct account.Account, pipelineID, cardID int64) (Card, error) {
	var (
		c     Card
		first string
		last  string
		lead  sql.NullFloat64
		added int64
	)
	err := q.QueryRow(ctx, `SELECT k.id, k.pipeline_id, k.client_id, c.first_name, c.last_name, s.name, k.status, k.entry_source, k.lead_value, k.added_at
		FROM cards k JOIN clients c ON c.account_id = k.account_id AND c.id = k.client_id JOIN stages s ON s.account_id = k.account_id AND s.id = k.stage_id
		WHERE k.account_id = ? AND k.pipeline_id = ? AND k.id = ?`, acct.ID, pipelineID, cardID).
		Scan(&c.ID, &c.PipelineID, &c.ClientID, &first, &last, &c.StageName, &c.Status, &c.EntrySource, &lead, &added)
	if db.IsNoRows(err) {
		return c, errs.New(errs.NotFound, "Card %v not found.", cardID)
	}
	if err != nil {
		return c, err
	}
	c.ClientName = contact.DisplayName(first, last)
	if lead.Valid {
		c.LeadValue = &lead.Float64
	}
	c.AddedAt = db.Time(added)
	rows, err := q.Query(ctx, `SELECT e.kind, COALESCE(f.name, ''), COALESCE(t.name, ''), e.source, e.created_at
		FROM card_events e LEFT JOIN stages f ON f.account_id = e.account_id AND f.id = e.from_stage_id LEFT JOIN stages t ON t.account_id = e.account_id AND t.id = e.to_stage_id
		WHERE e.account_id = ? AND e.card_id = ? ORDER BY e.id`, acct.ID, cardID)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var e CardEvent
		var at int64
		if err := rows.Scan(&e.Kind, &e.FromStage, &e.ToStage, &e.Source, &at); err != nil {
			return c, err
		}
		e.At = db.Time(at)
		c.Events = append(c.Events, e)
	}
	return c, rows.Err()
}

// UserRef is a team member of the account.
type UserRef struct {
	ID    int64
	Name  string
	Email string
}

// Users lists the account's active users, for assignment pools.
func Users(ctx context.Context, q db.Querier, acct account.Account) ([]UserRef, error) {
	rows, err := q.Query(ctx, `SELECT id, name, email FROM users WHERE account_id = ? AND active = ? ORDER BY name, id`, acct.ID, true)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UserRef
	for rows.Next() {
		var u UserRef
		if err := rows.Scan(&u.ID, &u.Name, &u.Email); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// NodeInput describes a new API input node.
type NodeInput struct {
	Name             string
	TargetStageID    int64
	DefaultLeadValue float64
	Strategy         string // none, round_robin, least_loaded
	Pool             []int64
}

// CreateAPINode creates an active API input node on a pipeline (the
// contract: "creating API input nodes is dashboard-only") and returns its
// UUID. It runs in the caller's transaction, which writes the audit entry
// of the change beside it (only owners create nodes: docs/api-notes.md).
func CreateAPINode(ctx context.Context, tx *db.Tx, acct account.Account, pipelineID int64, in NodeInput, now time.Time) (string, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len(in.Name) > 255 {
		return "", errs.New(errs.ValidationError, "Give the input node a name (at most 255 characters).")
	}
	switch in.Strategy {
	case "", "none":
		in.Strategy, in.Pool = "none", nil
	case "round_robin", "least_loaded":
		if len(in.Pool) == 0 {
			return "", errs.New(errs.ValidationError, "Choose at least one team member for %s assignment.", strings.ReplaceAll(in.Strategy, "_", " "))
		}
	default:
		return "", errs.New(errs.ValidationError, "Unknown assignment strategy %q.", in.Strategy)
	}
	if in.DefaultLeadValue < 0 {
		return "", errs.New(errs.ValidationError, "The default lead value cannot be negative.")
	}
	var pid int64
	if err := tx.QueryRow(ctx, `SELECT id FROM pipelines WHERE account_id = ? AND id = ?`, acct.ID, pipelineID).Scan(&pid); db.IsNoRows(err) {
		return "", errs.New(errs.NotFound, "Pipeline %v not found.", pipelineID)
	} else if err != nil {
		return "", err
	}
	var sid int64
	if err := tx.QueryRow(ctx, `SELECT id FROM stages WHERE account_id = ? AND pipeline_id = ? AND id = ?`, acct.ID, pipelineID, in.TargetStageID).Scan(&sid); db.IsNoRows(err) {
		return "", errs.New(errs.ValidationError, "Choose a target stage of this pipeline.")
	} else if err != nil {
		return "", err
	}
	pool := []int64{}
	if len(in.Pool) > 0 {
		inq, args := db.In(in.Pool)
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE account_id = ? AND id IN `+inq, append([]any{acct.ID}, args...)...).Scan(&n); err != nil {
			return "", err
		}
		if n != len(dedupe(in.Pool)) {
			return "", errs.New(errs.ValidationError, "The assignment pool names an unknown team member.")
		}
		pool = dedupe(in.Pool)
	}
	poolJSON, _ := json.Marshal(pool)
	uuid := db.NewUUID()
	// file_key keeps the workspace file's (pipeline, key) uniqueness;
	// dashboard-made nodes are keyed by their UUID.
	_, err := tx.Exec(ctx, `INSERT INTO input_nodes (account_id, pipeline_id, file_key, uuid, name, node_type, is_active,
			target_stage_id, default_lead_value, assignment_strategy, assignment_pool, created_at)
		VALUES (?, ?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?)`,
		acct.ID, pipelineID, "dashboard-"+uuid, uuid, in.Name, true, in.TargetStageID, in.DefaultLeadValue, in.Strategy, string(poolJSON), db.Micros(now))
	if err != nil {
		return "", err
	}
	return uuid, nil
}

// SetNodeActive activates or deactivates (retires) an API input node of a
// pipeline and returns the node's name and whether anything changed (for
// the caller's audit entry); another account's node is NOT_FOUND.
func SetNodeActive(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64, uuid string, active bool) (name string, changed bool, err error) {
	var was bool
	err = q.QueryRow(ctx, `SELECT name, is_active FROM input_nodes WHERE account_id = ? AND pipeline_id = ? AND uuid = ? AND node_type = 'api'`,
		acct.ID, pipelineID, uuid).Scan(&name, &was)
	if db.IsNoRows(err) {
		return "", false, errs.New(errs.NotFound, "Input node %v not found.", uuid)
	}
	if err != nil || was == active {
		return name, false, err
	}
	_, err = q.Exec(ctx, `UPDATE input_nodes SET is_active = ? WHERE account_id = ? AND pipeline_id = ? AND uuid = ? AND node_type = 'api'`,
		active, acct.ID, pipelineID, uuid)
	return name, err == nil, err
}

func dedupe(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
