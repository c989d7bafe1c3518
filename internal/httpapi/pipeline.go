package httpapi

import (
	"context"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"

	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// pageQuery reads limit (1..200, default 50) and offset (>= 0).
func pageQuery(q *valid.Query, def, max int) (limit, offset int) {
	return int(q.IntDefault("limit", int64(def), 1, int64(max))), int(q.IntDefault("offset", 0, 0, valid.MaxOffset))
}

// handleListPipelines handles "GET /api/v2/public/leadflow/pipelines".
func (s *Server) handleListPipelines(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	q := rep.Query(r.URL.Query())
	status, _ := q.Str("status", pipeline.MaxStatusLen)
	limit, offset := pageQuery(q, pipeline.DefaultLimit, pipeline.MaxLimit)
	if err := rep.Err(); err != nil {
		return err
	}
	list, count, err := pipeline.Pipelines(r.Context(), s.db, accountFrom(r.Context()), pipeline.Filter{Status: status, Limit: limit, Offset: offset}, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": list, "count": count, "limit": limit, "offset": offset})
	return nil
}

// pipelineID reads the {pipeline_id} path value.
func pipelineID(rep *valid.Report, r *http.Request) int64 {
	return rep.PathInt("pipeline_id", r.PathValue("pipeline_id"))
}

// handleListStages handles "GET /api/v2/public/leadflow/pipelines/{pipeline_id}/stages".
func (s *Server) handleListStages(w http.ResponseWriter, r *http.Request) error {
	return listOfPipeline(s, w, r, func(ctx context.Context, _ db.Querier, acct account.Account, id int64) ([]pipeline.Stage, error) {
		return pipeline.Stages(ctx, s.db, acct, id, s.clock.Now())
	})
}

// handleListInputNodes handles "GET /api/v2/public/leadflow/pipelines/{pipeline_id}/input-nodes".
func (s *Server) handleListInputNodes(w http.ResponseWriter, r *http.Request) error {
	return listOfPipeline(s, w, r, pipeline.ListInputNodes)
}

// listOfPipeline answers {status, data, count} with what list returns for
// the {pipeline_id} of the path.
func listOfPipeline[T any](s *Server, w http.ResponseWriter, r *http.Request,
	list func(context.Context, db.Querier, account.Account, int64) ([]T, error)) error {
	rep := &valid.Report{}
	id := pipelineID(rep, r)
	if err := rep.Err(); err != nil {
		return err
	}
	items, err := list(r.Context(), s.db, accountFrom(r.Context()), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": items, "count": len(items)})
	return nil
}

// handleListPipelineClients handles "GET /api/v2/public/leadflow/pipelines/{pipeline_id}/clients".
func (s *Server) handleListPipelineClients(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := pipelineID(rep, r)
	q := rep.Query(r.URL.Query())
	stageID, _ := q.Int("stage_id", 1, 1<<62)
	limit, offset := pageQuery(q, pipeline.DefaultLimit, pipeline.MaxLimit)
	if err := rep.Err(); err != nil {
		return err
	}
	cards, count, err := pipeline.ListClients(r.Context(), s.db, accountFrom(r.Context()), id,
		pipeline.ClientFilter{StageID: stageID, Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": cards, "count": count, "limit": limit, "offset": offset})
	return nil
}

// handleAddClients handles "POST /api/v2/public/leadflow/pipelines/{pipeline_id}/clients/add".
func (s *Server) handleAddClients(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := pipelineID(rep, r)
	o, _, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	o.Require("client_ids")
	ids, _ := o.Ints("client_ids", 1, 500)
	stageID, _ := o.Int("stage_id")
	if err := rep.Err(); err != nil {
		return err
	}
	res, err := pipeline.AddClients(r.Context(), s.db, accountFrom(r.Context()), id, ids, stageID, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, res)
	return nil
}

// handleRemoveClients handles "POST /api/v2/public/leadflow/pipelines/{pipeline_id}/clients/remove".
func (s *Server) handleRemoveClients(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := pipelineID(rep, r)
	o, _, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	o.Require("client_ids")
	ids, _ := o.Ints("client_ids", 1, 500)
	if err := rep.Err(); err != nil {
		return err
	}
	res, err := pipeline.RemoveClients(r.Context(), s.db, accountFrom(r.Context()), id, ids, s.clock.Now())
	if err != nil {
		return err
	}
	res.NotFoundClientID = nil
	writeJSON(w, http.StatusOK, res)
	return nil
}

// handleMoveClient handles "PATCH /api/v2/public/leadflow/pipelines/{pipeline_id}/clients/{client_id}/move".
func (s *Server) handleMoveClient(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := pipelineID(rep, r)
	clientID := rep.PathInt("client_id", r.PathValue("client_id"))
	o, _, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	o.Require("target_stage_id")
	target, _ := o.Int("target_stage_id")
	if err := rep.Err(); err != nil {
		return err
	}
	res, err := pipeline.MoveClient(r.Context(), s.db, accountFrom(r.Context()), id, clientID, target, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// ingestOptions reads the request-level fields shared by batch and single
// ingest.
func ingestOptions(o *valid.Object, req *pipeline.IngestRequest, defaultOnDuplicate string) {
	req.OnDuplicate = defaultOnDuplicate
	if v, ok := o.Enum("on_duplicate", pipeline.OnDuplicateUpdate, pipeline.OnDuplicateSkip, pipeline.OnDuplicateFail); ok {
		req.OnDuplicate = v
	}
	req.DryRun, _ = o.Bool("dry_run")
	req.TriggerAutomations = true
	if v, ok := o.Bool("trigger_automations"); ok {
		req.TriggerAutomations = v
	}
	req.StageID, _ = o.Int("stage_id")
	if d := o.Sub("defaults"); d != nil && d.Valid() {
		req.Defaults.AreaCode, _ = d.Str("area_code", pipeline.MaxAreaCodeLen)
		req.Defaults.Timezone, _ = d.Str("timezone", pipeline.MaxTimezoneLen)
		if l, ok := d.List("tags", 0, pipeline.MaxTags); ok {
			req.Defaults.Tags = pipeline.ParseTags(d.Report(), l, d.Loc("tags")...)
		}
		req.Defaults.Data, _ = d.Map("data")
	}
}

// checkDefaults applies the business rules on defaults (400s, after the
// schema).
func checkDefaults(d pipeline.Defaults) error {
	return pipeline.CheckDefaults(d)
}

// handleIngestBatch handles "POST /api/v2/public/leadflow/ingest/{input_node_uuid}/batch".
func (s *Server) handleIngestBatch(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	uuid, _ := valid.UUID(rep, r.PathValue("input_node_uuid"), "path", "input_node_uuid")
	o, _, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	o.Require("clients")
	rawRows, _ := o.List("clients", 1, pipeline.MaxBatchRows)
	req := pipeline.IngestRequest{NodeUUID: uuid, AllOrNone: false}
	ingestOptions(o, &req, pipeline.OnDuplicateUpdate)
	req.AllOrNone, _ = o.Bool("all_or_none")
	rows := make([]map[string]any, len(rawRows))
	for i, raw := range rawRows {
		m, ok := raw.(map[string]any)
		if !ok {
			rep.Add([]any{"body", "clients", i}, "model_type", "Input should be a valid dictionary or object to extract fields from")
			continue
		}
		rows[i] = m
	}
	if err := rep.Err(); err != nil {
		return err
	}
	if err := checkDefaults(req.Defaults); err != nil {
		return err
	}
	req.Rows = pipeline.ParseRows(rows, req.Defaults)
	res, err := s.ingester.Ingest(r.Context(), accountFrom(r.Context()), req, s.clock.Now())
	if err != nil {
		return err
	}
	s.metrics.batchRows("ingest_batch", len(req.Rows), res.StatusCounts())
	writeJSON(w, http.StatusOK, res)
	return nil
}

// handleIngestOne handles "POST /api/v2/public/leadflow/ingest/{input_node_uuid}":
// one row at top level, through the batch code path; on_duplicate defaults
// to skip (place without updating).
func (s *Server) handleIngestOne(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	uuid, _ := valid.UUID(rep, r.PathValue("input_node_uuid"), "path", "input_node_uuid")
	o, body, err := readObject(w, r, rep)
	if err != nil {
		return err
	}
	req := pipeline.IngestRequest{NodeUUID: uuid}
	ingestOptions(o, &req, pipeline.OnDuplicateSkip)
	if err := rep.Err(); err != nil {
		return err
	}
	if err := checkDefaults(req.Defaults); err != nil {
		return err
	}
	req.Rows = []pipeline.Row{pipeline.ParseRow(0, body.(map[string]any), req.Defaults)}
	res, err := s.ingester.Ingest(r.Context(), accountFrom(r.Context()), req, s.clock.Now())
	if err != nil {
		return err
	}
	s.metrics.batchRows("ingest_one", 1, res.StatusCounts())
	one, err := pipeline.SingleResult(res)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, one)
	return nil
}
