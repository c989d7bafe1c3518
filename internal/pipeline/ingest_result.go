package pipeline

import "github.com/frontdesk/frontdesk/internal/errs"

// Ingest: the answer, per row and in sum.

func (b *batch) result() *IngestResult {
	res := &IngestResult{Status: "success", DryRun: b.req.DryRun, InputNodeUUID: b.node.uuid, PipelineID: b.node.pipelineID,
		StageID: b.stage.ID, Results: b.results}
	s := &res.Summary
	s.Total = len(b.results)
	for _, r := range b.results {
		switch r.Status {
		case StatusCreated:
			s.Created++
		case StatusUpdated:
			s.Updated++
		case StatusSkipped:
			s.Skipped++
		case StatusFailed:
			s.Failed++
			s.PipelineFailed++
		}
		switch r.Pipeline.Status {
		case Added, Reactivated:
			s.PipelineAdded++
		case AlreadyActive:
			s.PipelineAlreadyActive++
		}
	}
	return res
}

// StatusCounts returns the rows per status (for metrics).
func (r *IngestResult) StatusCounts() map[string]int {
	return map[string]int{StatusCreated: r.Summary.Created, StatusUpdated: r.Summary.Updated, StatusSkipped: r.Summary.Skipped, StatusFailed: r.Summary.Failed}
}

// SingleIngestResult is the 200 body of single-client ingest.
type SingleIngestResult struct {
	Status        string    `json:"status"`
	DryRun        bool      `json:"dry_run"`
	InputNodeUUID string    `json:"input_node_uuid"`
	PipelineID    int64     `json:"pipeline_id"`
	StageID       int64     `json:"stage_id"`
	Result        RowResult `json:"result"`
}

// SingleResult turns a one-row batch into the single-ingest answer; a
// failed row is INGEST_ROW_FAILED.
func SingleResult(res *IngestResult) (*SingleIngestResult, error) {
	row := res.Results[0]
	if row.Status == StatusFailed {
		details := map[string]any{"result": row}
		if len(row.Errors) > 0 {
			return nil, errs.WithDetails(errs.IngestRowFailed, details, "The row failed: %s: %s", row.Errors[0].Field, row.Errors[0].Message)
		}
		return nil, errs.WithDetails(errs.IngestRowFailed, details, "The row failed.")
	}
	return &SingleIngestResult{Status: "success", DryRun: res.DryRun, InputNodeUUID: res.InputNodeUUID,
		PipelineID: res.PipelineID, StageID: res.StageID, Result: row}, nil
}
