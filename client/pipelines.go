package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Pipeline is a sales board.
type Pipeline struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Status      string    `json:"status"`
	StageCount  int       `json:"stage_count"`
	ClientCount int       `json:"client_count"`
	CreatedAt   time.Time `json:"created_at"`
}

// PipelineFilter narrows ListPipelines; zero values are not sent.
type PipelineFilter struct {
	Status        string // e.g. active, archived; "" lists every status
	Limit, Offset int    // limit 1..200, default 50
}

// ListPipelines lists pipelines by id.
func (c *Client) ListPipelines(ctx context.Context, f PipelineFilter, opts ...CallOption) (*Page[Pipeline], error) {
	q := query(url.Values{})
	q.str("status", f.Status)
	q.int("limit", int64(f.Limit))
	q.int("offset", int64(f.Offset))
	var out Page[Pipeline]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/leadflow/pipelines", query: url.Values(q)}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Stage is a column of a pipeline.
type Stage struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	StageType    string `json:"stage_type"`
	Position     int    `json:"position"`
	Color        string `json:"color"`
	IsEntryPoint bool   `json:"is_entry_point"`
	ClientCount  int    `json:"client_count"`
}

// ListStages lists a pipeline's stages by position.
func (c *Client) ListStages(ctx context.Context, pipelineID int64, opts ...CallOption) ([]Stage, error) {
	var out struct {
		Data []Stage `json:"data"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/leadflow/pipelines/" + pathID(pipelineID) + "/stages"}, &out, opts)
	return out.Data, err
}

// InputNode is an API input node: the door batch ingest goes through.
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

// ListInputNodes lists a pipeline's API input nodes.
func (c *Client) ListInputNodes(ctx context.Context, pipelineID int64, opts ...CallOption) ([]InputNode, error) {
	var out struct {
		Data []InputNode `json:"data"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/leadflow/pipelines/" + pathID(pipelineID) + "/input-nodes"}, &out, opts)
	return out.Data, err
}

// ClientSummary is a client as embedded in listings.
type ClientSummary struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	FirstName string  `json:"first_name"`
	LastName  string  `json:"last_name"`
	Phone     *string `json:"phone"`
	Email     *string `json:"email"`
	Company   *string `json:"company"`
}

// User is a team member.
type User struct {
	ID    int64   `json:"id"`
	Name  string  `json:"name"`
	Email *string `json:"email"`
}

// PipelineClient is a client's active card on a pipeline.
type PipelineClient struct {
	ClientID       int64         `json:"client_id"`
	ClientStateID  int64         `json:"client_state_id"`
	StageID        int64         `json:"stage_id"`
	StageName      string        `json:"stage_name"`
	LeadValue      *float64      `json:"lead_value"`
	EntrySource    string        `json:"entry_source"`
	AssignedUsers  []User        `json:"assigned_users"`
	AddedAt        time.Time     `json:"added_at"`
	StageEnteredAt time.Time     `json:"stage_entered_at"`
	Client         ClientSummary `json:"client"`
}

// PipelineClientFilter narrows ListPipelineClients.
type PipelineClientFilter struct {
	StageID       int64
	Limit, Offset int // limit 1..200, default 50
}

// ListPipelineClients lists the active cards of a pipeline.
func (c *Client) ListPipelineClients(ctx context.Context, pipelineID int64, f PipelineClientFilter, opts ...CallOption) (*Page[PipelineClient], error) {
	q := query(url.Values{})
	q.int("stage_id", f.StageID)
	q.int("limit", int64(f.Limit))
	q.int("offset", int64(f.Offset))
	var out Page[PipelineClient]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/leadflow/pipelines/" + pathID(pipelineID) + "/clients", query: url.Values(q)}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// AddClientsResult is the answer of AddClients.
type AddClientsResult struct {
	CountResult
	// NotFoundClientIDs lists unknown ids (additive).
	NotFoundClientIDs []int64 `json:"not_found_client_ids"`
}

// AddClients places existing clients on a stage (0: the entry-point stage).
// Active clients are skipped, removed ones reactivated.
func (c *Client) AddClients(ctx context.Context, pipelineID int64, clientIDs []int64, stageID int64, opts ...CallOption) (*AddClientsResult, error) {
	body := struct {
		ClientIDs []int64 `json:"client_ids"`
		StageID   int64   `json:"stage_id,omitempty"`
	}{clientIDs, stageID}
	var out AddClientsResult
	if err := c.do(ctx, request{method: http.MethodPost, path: "/leadflow/pipelines/" + pathID(pipelineID) + "/clients/add", body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveClients archives the clients' active cards (the clients are kept).
func (c *Client) RemoveClients(ctx context.Context, pipelineID int64, clientIDs []int64, opts ...CallOption) (*CountResult, error) {
	body := struct {
		ClientIDs []int64 `json:"client_ids"`
	}{clientIDs}
	var out CountResult
	if err := c.do(ctx, request{method: http.MethodPost, path: "/leadflow/pipelines/" + pathID(pipelineID) + "/clients/remove", body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// MoveClient moves a client's card to another stage of the same pipeline
// (MOVE_NOT_ALLOWED when the stage rules forbid it; see
// MoveNotAllowedDetails).
func (c *Client) MoveClient(ctx context.Context, pipelineID, clientID, targetStageID int64, opts ...CallOption) (*CountResult, error) {
	body := struct {
		TargetStageID int64 `json:"target_stage_id"`
	}{targetStageID}
	var out CountResult
	if err := c.do(ctx, request{method: http.MethodPatch, path: "/leadflow/pipelines/" + pathID(pipelineID) + "/clients/" + pathID(clientID) + "/move", body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Duplicate policies of ingest.
const (
	OnDuplicateUpdate = "update"
	OnDuplicateSkip   = "skip"
	OnDuplicateFail   = "fail"
)

// Tag is a client tag (Color and Description apply to new tags only).
type Tag struct {
	Name        string  `json:"name"`
	Color       string  `json:"color,omitempty"`
	Description *string `json:"description,omitempty"`
}

// IngestRow is one contact to ingest. A row needs ClientID, PhoneNumber or
// Email. Blank fields leave stored values unchanged; in Data a key set to
// nil removes it.
type IngestRow struct {
	ExternalID  string         `json:"external_id,omitempty"` // echoed back
	ClientID    int64          `json:"client_id,omitempty"`
	FirstName   string         `json:"first_name,omitempty"`
	LastName    string         `json:"last_name,omitempty"`
	PhoneNumber string         `json:"phone_number,omitempty"`
	AreaCode    string         `json:"area_code,omitempty"` // country calling code: 34, +34
	Email       string         `json:"email,omitempty"`
	Company     string         `json:"company,omitempty"`
	Timezone    string         `json:"timezone,omitempty"`
	Data        map[string]any `json:"data,omitempty"`
	Tags        []Tag          `json:"tags,omitempty"`
}

// IngestDefaults are batch-wide values applied where a row is silent.
type IngestDefaults struct {
	AreaCode string         `json:"area_code,omitempty"`
	Timezone string         `json:"timezone,omitempty"`
	Tags     []Tag          `json:"tags,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
}

// IngestOptions are the options of batch and single ingest.
type IngestOptions struct {
	OnDuplicate        string          `json:"on_duplicate,omitempty"` // batch default update, single default skip
	DryRun             bool            `json:"dry_run,omitempty"`
	TriggerAutomations *bool           `json:"trigger_automations,omitempty"` // default true
	StageID            int64           `json:"stage_id,omitempty"`            // default the node's target stage
	Defaults           *IngestDefaults `json:"defaults,omitempty"`
}

// IngestBatchRequest places up to 500 contacts through an input node.
type IngestBatchRequest struct {
	Clients   []IngestRow `json:"clients"`
	AllOrNone bool        `json:"all_or_none,omitempty"`
	IngestOptions
}

// IngestRowError is one problem of a row.
type IngestRowError struct {
	Field               string `json:"field"`
	Code                string `json:"code"` // required, invalid_format, conflict, exists, not_found
	Message             string `json:"message"`
	ExistingClientID    *int64 `json:"existing_client_id"`
	ConflictingClientID *int64 `json:"conflicting_client_id"`
	DuplicateOfIndex    *int   `json:"duplicate_of_index"`
}

// String reads "phone_number: message [invalid_format]" plus the ids the
// error names, for a person reading a log or a result file.
func (e IngestRowError) String() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	if e.Code != "" {
		fmt.Fprintf(&b, " [%s]", e.Code)
	}
	if e.ExistingClientID != nil {
		fmt.Fprintf(&b, " (existing client %d)", *e.ExistingClientID)
	}
	if e.ConflictingClientID != nil {
		fmt.Fprintf(&b, " (conflicting client %d)", *e.ConflictingClientID)
	}
	if e.DuplicateOfIndex != nil {
		fmt.Fprintf(&b, " (duplicate of batch index %d)", *e.DuplicateOfIndex)
	}
	return b.String()
}

// ExistingClient is a matched client as stored before the merge.
type ExistingClient struct {
	ClientSummary
	Timezone  *string        `json:"timezone"`
	Data      map[string]any `json:"data"`
	Tags      []Tag          `json:"tags"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// Ingest row statuses and placements.
const (
	IngestCreated = "created"
	IngestUpdated = "updated"
	IngestSkipped = "skipped"
	IngestFailed  = "failed"

	PlacementAdded         = "added"
	PlacementReactivated   = "reactivated"
	PlacementAlreadyActive = "already_active"
	PlacementNotAttempted  = "not_attempted"
)

// IngestRowResult is one row's result, in request order.
type IngestRowResult struct {
	Index      int              `json:"index"`
	ExternalID ExternalID       `json:"external_id"`
	Status     string           `json:"status"`
	ClientID   *int64           `json:"client_id"`
	MatchedBy  *string          `json:"matched_by"` // id, phone, email
	Errors     []IngestRowError `json:"errors"`
	Pipeline   struct {
		Status        string `json:"status"`
		ClientStateID *int64 `json:"client_state_id"`
	} `json:"pipeline"`
	ExistingClient *ExistingClient `json:"existing_client"`
}

// ExternalID is a row's external_id as echoed: the string sent ("" when
// none; other JSON values as their JSON text).
type ExternalID string

// UnmarshalJSON accepts any JSON value.
func (e *ExternalID) UnmarshalJSON(b []byte) error {
	var s string
	switch {
	case string(b) == "null":
		*e = ""
	case plainString(b):
		// A string with nothing to unescape, as external ids almost
		// always are: 500 of them in every batch's answer.
		*e = ExternalID(b[1 : len(b)-1])
	case json.Unmarshal(b, &s) == nil:
		*e = ExternalID(s)
	default:
		*e = ExternalID(b)
	}
	return nil
}

// plainString reports whether b, a JSON value the decoder has checked, is a
// string whose text is its bytes between the quotes: no escape, and valid
// UTF-8 (the decoder would replace invalid bytes with U+FFFD).
func plainString(b []byte) bool {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return false
	}
	in := b[1 : len(b)-1]
	return bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in)
}

// IngestSummary counts a batch's rows.
type IngestSummary struct {
	Total                 int `json:"total"`
	Created               int `json:"created"`
	Updated               int `json:"updated"`
	Skipped               int `json:"skipped"`
	Failed                int `json:"failed"`
	PipelineAdded         int `json:"pipeline_added"`
	PipelineAlreadyActive int `json:"pipeline_already_active"`
	PipelineFailed        int `json:"pipeline_failed"`
}

// IngestBatchResult is the answer of IngestBatch.
type IngestBatchResult struct {
	DryRun        bool              `json:"dry_run"`
	InputNodeUUID string            `json:"input_node_uuid"`
	PipelineID    int64             `json:"pipeline_id"`
	StageID       int64             `json:"stage_id"`
	Summary       IngestSummary     `json:"summary"`
	Results       []IngestRowResult `json:"results"`
}

// IngestBatch creates or updates up to 500 clients and places them on the
// node's stage. Rows succeed or fail one by one (a 200 with failed rows);
// with AllOrNone a failed row is INGEST_ROLLED_BACK (see
// IngestRolledBackDetails). Not retried on 500 unless sent with
// WithIdempotencyKey: re-sending the same rows with on_duplicate "update"
// converges, so the caller may retry itself.
func (c *Client) IngestBatch(ctx context.Context, nodeUUID string, req IngestBatchRequest, opts ...CallOption) (*IngestBatchResult, error) {
	return c.ingestBatch(ctx, nodeUUID, req, opts)
}

// IngestBatchJSON is IngestBatch with a body the caller encoded itself (an
// IngestBatchRequest's JSON), sent as it is: for importers that encode the
// next batch while one is in flight.
func (c *Client) IngestBatchJSON(ctx context.Context, nodeUUID string, body json.RawMessage, opts ...CallOption) (*IngestBatchResult, error) {
	return c.ingestBatch(ctx, nodeUUID, body, opts)
}

func (c *Client) ingestBatch(ctx context.Context, nodeUUID string, body any, opts []CallOption) (*IngestBatchResult, error) {
	var out IngestBatchResult
	if err := c.do(ctx, request{method: http.MethodPost, path: "/leadflow/ingest/" + url.PathEscape(nodeUUID) + "/batch", body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// IngestOneRequest is one contact with the ingest options (on_duplicate
// defaults to skip: place without updating).
type IngestOneRequest struct {
	IngestRow
	IngestOptions
}

// IngestOneResult is the answer of IngestOne.
type IngestOneResult struct {
	DryRun        bool            `json:"dry_run"`
	InputNodeUUID string          `json:"input_node_uuid"`
	PipelineID    int64           `json:"pipeline_id"`
	StageID       int64           `json:"stage_id"`
	Result        IngestRowResult `json:"result"`
}

// IngestOne places one contact; a failed row is INGEST_ROW_FAILED (see
// IngestRowFailedDetails).
func (c *Client) IngestOne(ctx context.Context, nodeUUID string, req IngestOneRequest, opts ...CallOption) (*IngestOneResult, error) {
	var out IngestOneResult
	if err := c.do(ctx, request{method: http.MethodPost, path: "/leadflow/ingest/" + url.PathEscape(nodeUUID), body: req}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
