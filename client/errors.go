package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Error codes of the API (the calendar error envelope's error_code), plus
// the synthetic codes this client gives to answers whose bodies carry none.
const (
	CodeNotFound             = "NOT_FOUND"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeValidationError      = "VALIDATION_ERROR"
	CodeServiceNotFound      = "SERVICE_NOT_FOUND"
	CodeProfessionalNotFound = "PROFESSIONAL_NOT_FOUND"
	CodeEventTypeNotFound    = "EVENT_TYPE_NOT_FOUND"
	CodeAmbiguousMatch       = "AMBIGUOUS_MATCH"
	CodeClientNotFound       = "CLIENT_NOT_FOUND"
	CodeInvalidPhone         = "INVALID_PHONE"
	CodeInvalidTimezone      = "INVALID_TIMEZONE"
	CodeInvalidTimeRange     = "INVALID_TIME_RANGE"
	CodeNameRequired         = "NAME_REQUIRED"
	CodeWaitlistInactive     = "WAITLIST_INACTIVE"
	CodeNoActiveWaitlist     = "NO_ACTIVE_WAITLIST"
	CodeServiceNotInWaitlist = "SERVICE_NOT_IN_WAITLIST"
	CodeStageNotInPipeline   = "STAGE_NOT_IN_PIPELINE"
	CodeInputNodeInactive    = "INPUT_NODE_INACTIVE"
	CodeBatchInProgress      = "BATCH_IN_PROGRESS"
	CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"
	CodeIdempotencyBusy      = "IDEMPOTENCY_IN_PROGRESS"
	CodeIngestRowFailed      = "INGEST_ROW_FAILED"
	CodeImportHasErrors      = "IMPORT_HAS_ERRORS"
	CodeIngestRolledBack     = "INGEST_ROLLED_BACK"
	CodeMoveNotAllowed       = "MOVE_NOT_ALLOWED"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeInternalError        = "INTERNAL_ERROR"

	// CodeUnauthorized is given to 401 answers ({detail: string}, no
	// error_code): a missing, unknown, expired or revoked key.
	CodeUnauthorized = "UNAUTHORIZED"
	// CodeInvalidRequest is given to 422 answers ({detail: [{loc, msg,
	// type}]}): the request did not match the schema; see Error.Validation.
	// (It differs from VALIDATION_ERROR, a 400 business-rule refusal.)
	CodeInvalidRequest = "INVALID_REQUEST"
	// CodeUnexpectedResponse is given to answers that are not in any of the
	// API's envelopes (e.g. a proxy's 502 page).
	CodeUnexpectedResponse = "UNEXPECTED_RESPONSE"
)

// Error is a non-2xx answer of the API.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// ErrorCode is the envelope's error_code, or CodeUnauthorized (401),
	// CodeInvalidRequest (422) or CodeUnexpectedResponse. Branch on it,
	// never on Message.
	ErrorCode string
	// Message is the human-readable explanation (for 401, the detail text).
	Message string
	// Details is the envelope's details as sent (JSON null when none); see
	// DecodeDetails.
	Details json.RawMessage
	// Validation holds the items of a 422 answer, every problem at once.
	Validation []ValidationItem
	// RequestID is the X-Request-Id of the answer: quote it when reporting
	// a problem.
	RequestID string
	// Attempts is how many times the request was sent.
	Attempts int
	// Body is the raw answer.
	Body []byte
}

// ValidationItem is one problem of a 422 answer.
type ValidationItem struct {
	// Loc is where: "body", "query" or "path", then the field path (list
	// indexes are numbers), e.g. ["body", "clients", 3].
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// Field returns the location after its first element, dotted:
// "client.phone", "clients.3", "limit".
func (v ValidationItem) Field() string {
	parts := make([]string, 0, len(v.Loc))
	for i, p := range v.Loc {
		if i == 0 {
			continue
		}
		parts = append(parts, fmt.Sprint(p))
	}
	return strings.Join(parts, ".")
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frontdesk: HTTP %d %s: %s", e.StatusCode, e.ErrorCode, e.Message)
	for i, v := range e.Validation {
		if i == 0 {
			b.WriteString(":")
		} else {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s: %s (%s)", v.Field(), v.Msg, v.Type)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// DecodeDetails decodes Details into v, e.g. *IngestRolledBackDetails for
// INGEST_ROLLED_BACK or *ServiceNotFoundDetails for SERVICE_NOT_FOUND.
func (e *Error) DecodeDetails(v any) error {
	if len(e.Details) == 0 {
		return errors.New("frontdesk: the error has no details")
	}
	return json.Unmarshal(e.Details, v)
}

// Field returns details.field when the details carry one (VALIDATION_ERROR,
// INVALID_PHONE, catalog refusals, …).
func (e *Error) Field() string {
	var d struct {
		Field string `json:"field"`
	}
	json.Unmarshal(e.Details, &d)
	return d.Field
}

// IsCode reports whether err is an *Error with the given error_code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.ErrorCode == code
}

// IsNotFound reports a 404 NOT_FOUND (another account's object included).
func IsNotFound(err error) bool { return IsCode(err, CodeNotFound) }

// parseError reads an error answer in whichever envelope it came.
func parseError(resp *http.Response, body []byte) *Error {
	e := &Error{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id"), Body: body}
	var env struct {
		Status    string          `json:"status"`
		ErrorCode string          `json:"error_code"`
		Message   string          `json:"message"`
		Details   json.RawMessage `json:"details"`
		Detail    json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		e.ErrorCode = CodeUnexpectedResponse
		e.Message = strings.TrimSpace(http.StatusText(resp.StatusCode) + ": " + truncate(string(body), 200))
		return e
	}
	switch {
	case env.ErrorCode != "":
		e.ErrorCode, e.Message, e.Details = env.ErrorCode, env.Message, env.Details
	case len(env.Detail) > 0 && env.Detail[0] == '"':
		json.Unmarshal(env.Detail, &e.Message)
		e.ErrorCode = CodeUnexpectedResponse
		if resp.StatusCode == http.StatusUnauthorized {
			e.ErrorCode = CodeUnauthorized
		}
	case len(env.Detail) > 0 && env.Detail[0] == '[':
		json.Unmarshal(env.Detail, &e.Validation)
		e.ErrorCode = CodeInvalidRequest
		e.Message = "The request did not match the schema."
	default:
		e.ErrorCode = CodeUnexpectedResponse
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Details of particular error codes (decode with Error.DecodeDetails).
type (
	// IngestRolledBackDetails are the details of INGEST_ROLLED_BACK: what
	// the batch would have done (ids discarded by the rollback are nil).
	IngestRolledBackDetails struct {
		Summary IngestSummary     `json:"summary"`
		Results []IngestRowResult `json:"results"`
	}
	// IngestRowFailedDetails are the details of INGEST_ROW_FAILED.
	IngestRowFailedDetails struct {
		Result IngestRowResult `json:"result"`
	}
	// ImportHasErrorsDetails are the details of IMPORT_HAS_ERRORS.
	ImportHasErrorsDetails struct {
		Summary WaitlistBatchSummary `json:"summary"`
		Rows    []WaitlistBatchRow   `json:"rows"`
	}
	// MoveNotAllowedDetails are the details of MOVE_NOT_ALLOWED.
	MoveNotAllowedDetails struct {
		FromStageID           int64   `json:"from_stage_id"`
		TargetStageID         int64   `json:"target_stage_id"`
		AllowedTargetStageIDs []int64 `json:"allowed_target_stage_ids"`
	}
	// CatalogDetails are the details of SERVICE_NOT_FOUND,
	// PROFESSIONAL_NOT_FOUND, EVENT_TYPE_NOT_FOUND and AMBIGUOUS_MATCH:
	// what would have been accepted.
	CatalogDetails struct {
		Field                  string   `json:"field"`
		Value                  any      `json:"value"`
		ValidServiceNames      []string `json:"valid_service_names"`
		ValidServiceIDs        []int64  `json:"valid_service_ids"`
		ValidProfessionalNames []string `json:"valid_professional_names"`
		ValidProfessionalIDs   []int64  `json:"valid_professional_ids"`
		ValidEventTypeNames    []string `json:"valid_event_type_names"`
		ValidEventTypeIDs      []int64  `json:"valid_event_type_ids"`
		Candidates             []IDName `json:"candidates"`
	}
)
