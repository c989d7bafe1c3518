package csvimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// The shapes below are the contract's (public-api-v2.md, "batch ingest" and
// "waiting-list batch"), declared here so the importer depends on nothing
// but the wire format.

// IngestResponse is the 200 body of batch ingest (and the details of
// INGEST_ROLLED_BACK, which has summary and results only).
type IngestResponse struct {
	DryRun        bool           `json:"dry_run"`
	InputNodeUUID string         `json:"input_node_uuid"`
	PipelineID    int64          `json:"pipeline_id"`
	StageID       int64          `json:"stage_id"`
	Summary       map[string]int `json:"summary"`
	Results       []IngestRow    `json:"results"`
}

// IngestRow is one row result of batch ingest.
type IngestRow struct {
	Index      int         `json:"index"`
	ExternalID any         `json:"external_id"`
	Status     string      `json:"status"`
	ClientID   *int64      `json:"client_id"`
	Errors     []IngestErr `json:"errors"`
	Pipeline   struct {
		Status        string `json:"status"`
		ClientStateID *int64 `json:"client_state_id"`
	} `json:"pipeline"`
}

// IngestErr is one row error of batch ingest.
type IngestErr struct {
	Field               string `json:"field"`
	Code                string `json:"code"`
	Message             string `json:"message"`
	ExistingClientID    *int64 `json:"existing_client_id"`
	ConflictingClientID *int64 `json:"conflicting_client_id"`
	DuplicateOfIndex    *int   `json:"duplicate_of_index"`
}

// String reads "phone_number: message [invalid_format]" plus the ids the
// error names, so a result file reader can act on it.
func (e IngestErr) String() string {
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

// WaitlistResponse is the data of a waiting-list batch (and the details of
// IMPORT_HAS_ERRORS, which has summary and rows only).
type WaitlistResponse struct {
	WaitlistID     int64          `json:"waitlist_id"`
	ClientsCreated int            `json:"clients_created"`
	EntriesCreated int            `json:"entries_created"`
	Skipped        int            `json:"skipped"`
	Summary        map[string]int `json:"summary"`
	Rows           []WaitlistRow  `json:"rows"`
}

// WaitlistRow is one row result of the waiting-list batch.
type WaitlistRow struct {
	Index    int      `json:"index"`
	Status   string   `json:"status"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Phone    *string  `json:"phone"`
	Email    *string  `json:"email"`
	ClientID *int64   `json:"client_id"`
}

// APIError is a non-2xx answer: the calendar error envelope, a 422 list of
// problems, or a 401 detail.
type APIError struct {
	Status  int
	Code    string          // error_code; "" for 401 and 422
	Message string          // message, or the 401 detail
	Details json.RawMessage // details of the envelope
	Invalid []Problem       // 422 items
}

// Problem is one 422 item.
type Problem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for i, p := range e.Invalid {
		if i == 5 {
			fmt.Fprintf(&b, "; … %d more", len(e.Invalid)-i)
			break
		}
		fmt.Fprintf(&b, "; %v: %s (%s)", p.Loc, p.Msg, p.Type)
	}
	return b.String()
}

// Retryable reports a status worth sending again: only server errors. A 4xx
// means the request itself must change (the contract: 400s are not to be
// retried unchanged).
func (e *APIError) Retryable() bool { return e.Status >= 500 }

// Client sends batches. Retries are safe because the contract makes them
// converge: a re-sent ingest batch with on_duplicate update turns created
// rows into updated / already_active and duplicates nothing, and a re-sent
// waiting-list batch finds its entries already waiting.
type Client struct {
	BaseURL   string
	Key       string
	HTTP      *http.Client
	UserAgent string
	// Retries is how many times a batch is sent again after a 5xx or a
	// network error.
	Retries int
	// Backoff is the wait before retry n (1-based); nil: exponential from
	// 500 ms, capped at 15 s, with jitter.
	Backoff func(n int) time.Duration
	// OnRetry, when set, hears about each retry before its wait.
	OnRetry func(n int, err error, wait time.Duration)
	// RequestID, when set, names each attempt (sent as X-Request-Id so the
	// server's logs can be matched with the import).
	RequestID func(attempt int) string
}

// DefaultBackoff waits 0.5 s, 1 s, 2 s, … up to 15 s, each ±20 %.
func DefaultBackoff(n int) time.Duration {
	d := 500 * time.Millisecond << min(n-1, 5)
	d = min(d, 15*time.Second)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Ingest sends one batch-ingest request.
func (c *Client) Ingest(ctx context.Context, nodeUUID string, body map[string]any) (*IngestResponse, int, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, 0, err
	}
	return c.IngestJSON(ctx, nodeUUID, payload)
}

// IngestJSON sends one batch-ingest request whose body is already encoded
// (the importer encodes the next batch while this one is in flight).
func (c *Client) IngestJSON(ctx context.Context, nodeUUID string, payload []byte) (*IngestResponse, int, error) {
	var out IngestResponse
	tries, err := c.post(ctx, "/api/v2/public/leadflow/ingest/"+nodeUUID+"/batch", payload, &out)
	if err != nil {
		return nil, tries, err
	}
	return &out, tries, nil
}

// WaitlistBatch sends one waiting-list batch.
func (c *Client) WaitlistBatch(ctx context.Context, body map[string]any) (*WaitlistResponse, int, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, 0, err
	}
	return c.WaitlistBatchJSON(ctx, payload)
}

// WaitlistBatchJSON sends one waiting-list batch whose body is already
// encoded.
func (c *Client) WaitlistBatchJSON(ctx context.Context, payload []byte) (*WaitlistResponse, int, error) {
	var out struct {
		Data WaitlistResponse `json:"data"`
	}
	tries, err := c.post(ctx, "/api/v2/public/calendar/waitlist/entries/batch", payload, &out)
	if err != nil {
		return nil, tries, err
	}
	return &out.Data, tries, nil
}

// post sends payload (JSON) and decodes a 2xx answer into out, retrying 5xx
// answers and network errors. It returns how many attempts it made.
func (c *Client) post(ctx context.Context, path string, payload []byte, out any) (int, error) {
	url := strings.TrimRight(c.BaseURL, "/") + path
	for attempt := 1; ; attempt++ {
		err := c.once(ctx, url, payload, out, attempt)
		if err == nil {
			return attempt, nil
		}
		if ctx.Err() != nil {
			return attempt, ctx.Err()
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) && !apiErr.Retryable() {
			return attempt, err
		}
		if attempt > c.Retries {
			return attempt, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		backoff := c.Backoff
		if backoff == nil {
			backoff = DefaultBackoff
		}
		wait := backoff(attempt)
		if c.OnRetry != nil {
			c.OnRetry(attempt, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt, ctx.Err()
		case <-t.C:
		}
	}
}

// networkError is a failure to get a complete answer: the batch may or may
// not have been written.
type networkError struct{ err error }

func (e *networkError) Error() string { return "network: " + e.err.Error() }
func (e *networkError) Unwrap() error { return e.err }

func (c *Client) once(ctx context.Context, url string, payload []byte, out any, attempt int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Key)
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.RequestID != nil {
		req.Header.Set("X-Request-Id", c.RequestID(attempt))
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return &networkError{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &networkError{err}
	}
	if resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("HTTP %d with a body that is not the expected JSON: %w", resp.StatusCode, err)
		}
		return nil
	}
	return decodeError(resp.StatusCode, data)
}

// decodeError reads whichever envelope the server used.
func decodeError(status int, data []byte) *APIError {
	e := &APIError{Status: status}
	var env struct {
		ErrorCode string          `json:"error_code"`
		Message   string          `json:"message"`
		Details   json.RawMessage `json:"details"`
		Detail    json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &env) != nil {
		e.Message = strings.TrimSpace(string(data))
		if len(e.Message) > 200 {
			e.Message = e.Message[:200] + "…"
		}
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
		return e
	}
	e.Code, e.Message, e.Details = env.ErrorCode, env.Message, env.Details
	if len(env.Detail) > 0 {
		var s string
		if json.Unmarshal(env.Detail, &s) == nil {
			e.Message = s
		} else {
			json.Unmarshal(env.Detail, &e.Invalid)
		}
	}
	return e
}
