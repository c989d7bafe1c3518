// Package pipeline owns sales boards: pipelines, their stages and API input
// nodes, and cards — a client's membership of a pipeline, with its history.
// It places clients (add, and ingest through input nodes), moves them under
// the stages' rules, and removes them, keeping every card's timeline.
package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// IngestPathPrefix is the route prefix of the batch ingest endpoint; an input
// node's ingest_path is built from it.
const IngestPathPrefix = "/api/v2/public/leadflow/ingest/"

// Pipeline is a sales board as listed.
type Pipeline struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Status      string    `json:"status"`
	StageCount  int       `json:"stage_count"`
	ClientCount int       `json:"client_count"`
	CreatedAt   time.Time `json:"created_at"` // UTC to the microsecond (db.Time): JSON writes it as clock.Format does
}

// Stage is a column of a board.
type Stage struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	StageType    string `json:"stage_type"`
	Position     int    `json:"position"`
	Color        string `json:"color"`
	IsEntryPoint bool   `json:"is_entry_point"`
	ClientCount  int    `json:"client_count"`

	pipelineID     int64
	allowedTargets []int64 // nil: any move out is allowed
	automations    string
}

// InputNode is an API input node as listed.
type InputNode struct {
	UUID             string  `json:"input_node_uuid"`
	Name             string  `json:"name"`
	IsActive         bool    `json:"is_active"`
	PipelineID       int64   `json:"pipeline_id"`
	TargetStageID    *int64  `json:"target_stage_id"`
	TargetStageName  *string `json:"target_stage_name"`
	DefaultLeadValue float64 `json:"default_lead_value"`
	IngestPath       string  `json:"ingest_path"`
}

// Bounds of what one request names or lists, read by every front door's
// decoder.
const (
	// DefaultLimit and MaxLimit bound a page of pipelines (or of a
	// pipeline's clients).
	DefaultLimit, MaxLimit = 50, 200
	// MaxStatusLen bounds a status filter.
	MaxStatusLen = 64
	// MaxBatchRows is the most rows one ingest batch carries.
	MaxBatchRows = 500
	// MaxTags is the most tags a row, or a batch's defaults, carries.
	MaxTags = 100
	// MaxAreaCodeLen and MaxTimezoneLen bound a row's (or the defaults')
	// area_code and timezone.
	MaxAreaCodeLen, MaxTimezoneLen = 8, 64
)

// Filter narrows a pipeline listing.
type Filter struct {
	Status        string // "" lists every status
	Limit, Offset int
}

// ListPipelines lists acct's pipelines by id with their live counts.
func ListPipelines(ctx context.Context, q db.Querier, acct account.Account, f Filter) ([]Pipeline, int, error) {
	where, args := "p.account_id = ?", []any{acct.ID}
	if f.Status != "" {
		where += " AND p.status = ?"
		args = append(args, f.Status)
	}
	var total int
	if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM pipelines p WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count pipelines: %w", err)
	}
	// The counts name the account as the outer query does: on Citus the
	// whole statement then runs on the account's worker.
	rows, err := q.Query(ctx, `SELECT p.id, p.name, p.description, p.status, p.created_at,
			(SELECT COUNT(*) FROM stages s WHERE s.account_id = ? AND s.pipeline_id = p.id),
			(SELECT COUNT(*) FROM cards c WHERE c.account_id = ? AND c.pipeline_id = p.id AND c.status = 'active')
		FROM pipelines p WHERE `+where+` ORDER BY p.id LIMIT ? OFFSET ?`, append(append([]any{acct.ID, acct.ID}, args...), f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list pipelines: %w", err)
	}
	defer rows.Close()
	out := []Pipeline{}
	for rows.Next() {
		var (
			p       Pipeline
			desc    sql.NullString
			created int64
		)
		if err := rows.Scan(&p.ID, &p.Name, &desc, &p.Status, &created, &p.StageCount, &p.ClientCount); err != nil {
			return nil, 0, err
		}
		if desc.Valid {
			p.Description = &desc.String
		}
		p.CreatedAt = db.Time(created)
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// mustPipeline checks that the pipeline exists in acct: another account's
// pipeline is indistinguishable from a missing one.
func mustPipeline(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64) error {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM pipelines WHERE account_id = ? AND id = ?`, acct.ID, pipelineID).Scan(&id)
	if db.IsNoRows(err) {
		return errs.New(errs.NotFound, "Pipeline %d not found.", pipelineID)
	}
	return err
}

// ListStages returns a pipeline's stages by position with their active cards.
func ListStages(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64) ([]Stage, error) {
	if err := mustPipeline(ctx, q, acct, pipelineID); err != nil {
		return nil, err
	}
	stages, err := loadStages(ctx, q, acct, true, "s.pipeline_id = ?", pipelineID)
	if err != nil {
		return nil, err
	}
	return stages, nil
}

// loadStages reads stages of acct; withCounts fills ClientCount, which
// costs an index range over the stage's active cards and is only shown by
// the stages endpoint (placing and moving never need it).
func loadStages(ctx context.Context, q db.Querier, acct account.Account, withCounts bool, where string, args ...any) ([]Stage, error) {
	count, all := "0", []any{}
	if withCounts {
		// The count names the account as the outer query does: on Citus
		// the whole statement then runs on the account's worker.
		count = `(SELECT COUNT(*) FROM cards c
			WHERE c.account_id = ? AND c.pipeline_id = s.pipeline_id AND c.stage_id = s.id AND c.status = 'active')`
		all = append(all, acct.ID)
	}
	all = append(append(all, acct.ID), args...)
	rows, err := q.Query(ctx, `SELECT s.id, s.pipeline_id, s.name, s.stage_type, s.position, s.color, s.is_entry_point,
			s.allowed_targets, s.automations, `+count+`
		FROM stages s WHERE s.account_id = ? AND `+where+` ORDER BY s.position, s.id`, all...)
	if err != nil {
		return nil, fmt.Errorf("load stages: %w", err)
	}
	defer rows.Close()
	out := []Stage{}
	for rows.Next() {
		var (
			s       Stage
			allowed sql.NullString
		)
		if err := rows.Scan(&s.ID, &s.pipelineID, &s.Name, &s.StageType, &s.Position, &s.Color, &s.IsEntryPoint,
			&allowed, &s.automations, &s.ClientCount); err != nil {
			return nil, err
		}
		if allowed.Valid {
			s.allowedTargets = []int64{}
			json.Unmarshal([]byte(allowed.String), &s.allowedTargets)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// stageByID loads one stage of acct (any pipeline).
func stageByID(ctx context.Context, q db.Querier, acct account.Account, stageID int64) (Stage, bool, error) {
	stages, err := loadStages(ctx, q, acct, false, "s.id = ?", stageID)
	if err != nil || len(stages) == 0 {
		return Stage{}, false, err
	}
	return stages[0], true, nil
}

// defaultStage is the entry-point stage of a pipeline, else its first.
func defaultStage(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64) (Stage, error) {
	stages, err := loadStages(ctx, q, acct, false, "s.pipeline_id = ?", pipelineID)
	if err != nil {
		return Stage{}, err
	}
	if len(stages) == 0 {
		return Stage{}, errs.New(errs.StageNotInPipeline, "Pipeline %d has no stages.", pipelineID)
	}
	for _, s := range stages {
		if s.IsEntryPoint {
			return s, nil
		}
	}
	return stages[0], nil
}

// ListInputNodes lists a pipeline's API input nodes (other types are
// dashboard-only).
func ListInputNodes(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64) ([]InputNode, error) {
	if err := mustPipeline(ctx, q, acct, pipelineID); err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT n.uuid, n.name, n.is_active, n.pipeline_id, n.target_stage_id, s.name, n.default_lead_value
		FROM input_nodes n LEFT JOIN stages s ON s.account_id = n.account_id AND s.id = n.target_stage_id
		WHERE n.account_id = ? AND n.pipeline_id = ? AND n.node_type = 'api' ORDER BY n.id`, acct.ID, pipelineID)
	if err != nil {
		return nil, fmt.Errorf("list input nodes: %w", err)
	}
	defer rows.Close()
	out := []InputNode{}
	for rows.Next() {
		var (
			n         InputNode
			target    sql.NullInt64
			stageName sql.NullString
		)
		if err := rows.Scan(&n.UUID, &n.Name, &n.IsActive, &n.PipelineID, &target, &stageName, &n.DefaultLeadValue); err != nil {
			return nil, err
		}
		if target.Valid {
			n.TargetStageID = &target.Int64
			n.TargetStageName = &stageName.String
		}
		n.IngestPath = IngestPathPrefix + n.UUID + "/batch"
		out = append(out, n)
	}
	return out, rows.Err()
}
