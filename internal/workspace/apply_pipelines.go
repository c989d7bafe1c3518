package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

func (ap *applier) pipelines(ctx context.Context) error {
	ap.stages = map[string]map[string]int64{}
	for pi, p := range ap.f.Pipelines {
		status := p.Status
		if status == "" {
			status = "active"
		}
		var desc any
		if p.Description != nil {
			desc = *p.Description
		}
		var fs fields
		fs.add(p.keys.has("name"), "name", p.Name)
		fs.add(p.keys.has("description"), "description", desc)
		fs.add(p.keys.has("status"), "status", status)
		pid, err := ap.upsertFields(ctx, "pipelines", "", ap.owned(p.Key), fs,
			column("created_at", db.Micros(ap.now)), column("updated_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		ap.res.IDs.Pipelines[p.Key] = pid
		stageIDs, err := ap.stageIDs(ctx, p.Key, pid)
		if err != nil {
			return err
		}
		// The file's order is the stages' order when it lists every stage
		// the pipeline has; a partial list keeps the stored order and puts
		// new stages last.
		listed := map[string]bool{}
		for _, s := range p.Stages {
			listed[s.Key] = true
		}
		ordered := true
		for k := range stageIDs {
			ordered = ordered && listed[k]
		}
		var last int
		if err := ap.tx.QueryRow(ctx, `SELECT COALESCE(MAX(position), 0) FROM stages WHERE account_id = ? AND pipeline_id = ?`, ap.acct.ID, pid).Scan(&last); err != nil {
			return err
		}
		// Stages first, then the rules that refer to them by id.
		for i, s := range p.Stages {
			has := s.keys.has
			st := s.StageType
			if st == "" {
				st = "open"
			}
			autos := s.Automations
			if autos == nil {
				autos = []AutomationSpec{}
			}
			var stored string
			if _, exists := stageIDs[s.Key]; exists && has("automations") {
				if err := ap.tx.QueryRow(ctx, `SELECT automations FROM stages WHERE account_id = ? AND id = ?`, ap.acct.ID, stageIDs[s.Key]).Scan(&stored); err != nil {
					return err
				}
			}
			autoText, err := ap.sealAutomations(stored, autos)
			if err != nil {
				return &Error{Problems: []string{fmt.Sprintf("pipelines[%d].stages[%d].automations: %v", pi, i, err)}}
			}
			position := i + 1
			if _, exists := stageIDs[s.Key]; !ordered && !exists {
				last++
				position = last
			}
			var fs fields
			fs.add(has("name"), "name", s.Name)
			fs.add(has("stage_type"), "stage_type", st)
			fs.add(ordered, "position", position)
			fs.add(has("color"), "color", s.Color)
			fs.add(has("entry_point"), "is_entry_point", s.EntryPoint)
			fs.add(has("automations"), "automations", autoText)
			id, err := ap.upsertFields(ctx, "stages", "", []col{column("account_id", ap.acct.ID), column("pipeline_id", pid), column("file_key", s.Key)}, fs)
			if err != nil {
				return err
			}
			stageIDs[s.Key] = id
			ap.res.IDs.Stages[p.Key+"/"+s.Key] = id
		}
		for _, s := range p.Stages {
			if !s.keys.has("allowed_targets") {
				continue
			}
			var allowed any
			if s.AllowedTargets != nil {
				ids := make([]int64, 0, len(*s.AllowedTargets))
				for _, t := range *s.AllowedTargets {
					ids = append(ids, stageIDs[t])
				}
				if allowed, err = db.JSONText(ids); err != nil {
					return err
				}
			}
			if _, err := ap.tx.Exec(ctx, `UPDATE stages SET allowed_targets = ? WHERE account_id = ? AND id = ? AND allowed_targets IS DISTINCT FROM ?`,
				allowed, ap.acct.ID, stageIDs[s.Key], allowed); err != nil {
				return err
			}
		}
		for _, n := range p.InputNodes {
			if err := ap.inputNode(ctx, p.Key, pid, stageIDs, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// stageIDs loads the stage ids a pipeline already has (for references to
// stages that this file does not list).
func (ap *applier) stageIDs(ctx context.Context, pipelineKey string, pipelineID int64) (map[string]int64, error) {
	if m, ok := ap.stages[pipelineKey]; ok {
		return m, nil
	}
	m := map[string]int64{}
	rows, err := ap.tx.Query(ctx, `SELECT file_key, id FROM stages WHERE account_id = ? AND pipeline_id = ?`, ap.acct.ID, pipelineID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, err
		}
		m[k] = id
	}
	ap.stages[pipelineKey] = m
	return m, rows.Err()
}

func (ap *applier) inputNode(ctx context.Context, pipelineKey string, pid int64, stageIDs map[string]int64, n InputNodeSpec) error {
	typ := n.Type
	if typ == "" {
		typ = "api"
	}
	has := n.keys.has
	strategy, pool := "none", []int64{}
	// assignment: null (or left out of a new node) is no assignment; a
	// given assignment changes the keys it gives.
	hasStrategy, hasPool := has("assignment"), has("assignment")
	if n.Assignment != nil {
		hasStrategy, hasPool = n.Assignment.keys.has("strategy"), n.Assignment.keys.has("pool")
		if n.Assignment.Strategy != "" {
			strategy = n.Assignment.Strategy
		}
		for _, uk := range n.Assignment.Pool {
			uid, err := ap.idOf(ctx, "users", ap.res.IDs.Users, uk)
			if err != nil {
				return err
			}
			pool = append(pool, uid)
		}
	}
	var target any
	if n.TargetStage != "" {
		target = stageIDs[n.TargetStage]
	}
	// A generated uuid is generated once: an existing node keeps its own.
	var existing string
	err := ap.tx.QueryRow(ctx, `SELECT uuid FROM input_nodes WHERE pipeline_id = ? AND file_key = ?`, pid, n.Key).Scan(&existing)
	if err != nil && !db.IsNoRows(err) {
		return err
	}
	uuid := strings.ToLower(n.UUID)
	if uuid == "" {
		uuid = existing
	}
	if uuid == "" {
		uuid = db.NewUUID()
	}
	var fs fields
	fs.add(has("uuid"), "uuid", uuid)
	fs.add(has("name"), "name", n.Name)
	fs.add(has("type"), "node_type", typ)
	fs.add(has("active"), "is_active", boolOr(n.Active, true))
	fs.add(has("target_stage"), "target_stage_id", target)
	fs.add(has("default_lead_value"), "default_lead_value", n.DefaultLeadValue)
	fs.add(hasStrategy, "assignment_strategy", strategy)
	fs.addJSON(hasPool, "assignment_pool", pool)
	if _, err := ap.upsertFields(ctx, "input_nodes", "", []col{column("pipeline_id", pid), column("file_key", n.Key)}, fs,
		column("account_id", ap.acct.ID), column("created_at", db.Micros(ap.now))); db.IsUniqueViolation(err) {
		// Node uuids are unique across accounts: the caller's to fix, not
		// an internal error.
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "uuid", "uuid": uuid},
			"pipelines %s, input node %s: uuid %s is already used by another input node", pipelineKey, n.Key, uuid)
	} else if err != nil {
		return err
	}
	ap.res.IDs.InputNodes[pipelineKey+"/"+n.Key] = uuid
	return nil
}
