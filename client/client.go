// Package client is the Go client of Frontdesk's Public Integration API v2:
// calendar (services, availability, booking, weekly series), waiting
// lists, pipelines and ingest, and chat history.
//
//	c := client.New("https://api.example.com", "pk_live_…")
//	res, err := c.IngestBatch(ctx, nodeUUID, client.IngestBatchRequest{
//		Clients: []client.IngestRow{{ExternalID: "crm-1", PhoneNumber: "+34600111222"}},
//	})
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.ErrorCode == client.CodeNotFound { … }
//
// Every method takes a context and returns the contract's response as typed
// structs. Failures are *Error values carrying the HTTP status, the
// contract's error_code (synthetic codes for 401 and 422, whose bodies have
// none), the message, the raw details and the request id.
//
// Retries follow the contract: a 500 is retried (with exponential backoff and
// jitter, until the context ends) only for GET requests, for booking ("a 500
// may be retried": the booking and its new client are one transaction), and
// for any request sent with WithIdempotencyKey (the server replays the first
// answer to a repeat, so a retry never applies twice). A proxy's 502, 503 or
// 504 and a connection lost in transit may hide an applied request: they are
// retried only for GETs and keyed calls. A 429 (rate limited; nothing was
// applied) is retried for every request after its Retry-After. Other 4xx
// answers are never retried. Batch ingest without a key is not retried
// automatically: a re-sent batch converges, but its row statuses then
// describe the second attempt (`updated` instead of `created`), which only
// the caller can judge — a caller that has judged (the CSV importer) says so
// with WithRepeatSafe.
package client

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls the public API with one API key. It is safe for concurrent
// use.
type Client struct {
	baseURL   string
	apiKey    string
	http      *http.Client
	retry     RetryPolicy
	userAgent string
}

// RetryPolicy bounds the retries of a retryable request.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first included
	// (default 4; 1 disables retries).
	MaxAttempts int
	// BaseDelay is the backoff before the second attempt (default 250 ms);
	// each later one doubles, with full jitter, up to MaxDelay (default 5 s).
	// A Retry-After header of the answer replaces the backoff.
	BaseDelay, MaxDelay time.Duration
	// OnRetry, when set, hears of each retry before its wait: the attempt
	// that failed (1-based), why (an *Error, or the transport error) and
	// how long the client waits before sending again.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the *http.Client used for requests (default: one with
// a 60 s timeout; batch ingest is synchronous and may take seconds).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithRetry sets the retry policy; zero fields keep their defaults.
func WithRetry(p RetryPolicy) Option {
	return func(c *Client) {
		if p.MaxAttempts > 0 {
			c.retry.MaxAttempts = p.MaxAttempts
		}
		if p.BaseDelay > 0 {
			c.retry.BaseDelay = p.BaseDelay
		}
		if p.MaxDelay > 0 {
			c.retry.MaxDelay = p.MaxDelay
		}
		if p.OnRetry != nil {
			c.retry.OnRetry = p.OnRetry
		}
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client for the API at baseURL (e.g. "https://api.example.com",
// without /api/v2/public) authenticating with apiKey ("pk_…").
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		baseURL:   strings.TrimRight(baseURL, "/"),
		apiKey:    apiKey,
		http:      &http.Client{Timeout: 60 * time.Second},
		retry:     RetryPolicy{MaxAttempts: 4, BaseDelay: 250 * time.Millisecond, MaxDelay: 5 * time.Second},
		userAgent: "frontdesk-go-client/2",
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// CallOption configures one call.
type CallOption func(*callOptions)

type callOptions struct {
	repeatSafe     bool
	idempotencyKey string
	requestID      string
	header         http.Header
	info           *CallInfo
}

// CallInfo describes how a call went (see WithCallInfo).
type CallInfo struct {
	StatusCode int    // the final answer's status (0 when none arrived)
	RequestID  string // its X-Request-Id
	Attempts   int    // how many times the request was sent
	// Replayed is true when the answer is the stored response of an
	// earlier request with the same Idempotency-Key.
	Replayed bool
}

// WithCallInfo fills info when the call returns, successful or not.
func WithCallInfo(info *CallInfo) CallOption { return func(o *callOptions) { o.info = info } }

// WithIdempotencyKey sends an Idempotency-Key header (at most 255
// characters): the server keeps the first answer (below 500) for 24 hours
// and replays it to a repeat with the same body, so the call may be retried
// after a 500 or a lost connection without applying twice. Reusing a key
// with another body is IDEMPOTENCY_KEY_REUSED.
func WithIdempotencyKey(key string) CallOption {
	return func(o *callOptions) { o.idempotencyKey = key }
}

// WithRepeatSafe says the caller knows that sending this call twice
// converges, without an Idempotency-Key: a batch ingest with on_duplicate
// "update" (re-sent rows come back updated / already_active, nothing is
// duplicated) or a waiting-list batch (re-sent rows come back
// already_waiting). Its 5xx answers and lost connections are then retried
// like a GET's; the row statuses of a retried call describe the last
// attempt.
func WithRepeatSafe() CallOption { return func(o *callOptions) { o.repeatSafe = true } }

// WithRequestID sets the X-Request-Id of the call (default: a random id,
// the same for every attempt of the call, so the server's logs show the
// retries of one call together).
func WithRequestID(id string) CallOption { return func(o *callOptions) { o.requestID = id } }

// WithHeader adds a header to the call.
func WithHeader(name, value string) CallOption {
	return func(o *callOptions) {
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Add(name, value)
	}
}

const apiPrefix = "/api/v2/public"

// request is one call to the API.
type request struct {
	method, path string
	query        url.Values
	body         any
	// retry500 marks an endpoint whose 500 the contract says may be
	// retried (booking); GETs and keyed calls are retryable anyway.
	retry500 bool
}

// do sends req, retrying where allowed, and decodes a 2xx body into out.
func (c *Client) do(ctx context.Context, req request, out any, opts []CallOption) error {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	if co.requestID == "" {
		co.requestID = newRequestID()
	}
	var payload []byte
	if raw, ok := req.body.(json.RawMessage); ok {
		payload = raw // encoded by the caller (the importer encodes ahead)
	} else if req.body != nil {
		var err error
		if payload, err = json.Marshal(req.body); err != nil {
			return fmt.Errorf("frontdesk: encode request: %w", err)
		}
	}
	u := c.baseURL + apiPrefix + req.path
	if len(req.query) > 0 {
		u += "?" + req.query.Encode()
	}
	// A request that failed in transit, or whose answer came from a proxy,
	// may have been applied: only repeat it when a repeat cannot apply twice.
	retryTransport := req.method == http.MethodGet || co.idempotencyKey != "" || co.repeatSafe
	retry500 := retryTransport || req.retry500
	attempts := c.retry.MaxAttempts
	if attempts < 1 {
		attempts = 1
	}
	for attempt := 1; ; attempt++ {
		hreq, err := http.NewRequestWithContext(ctx, req.method, u, bodyReader(payload))
		if err != nil {
			return fmt.Errorf("frontdesk: %w", err)
		}
		hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
		hreq.Header.Set("Accept", "application/json")
		hreq.Header.Set("User-Agent", c.userAgent)
		hreq.Header.Set("X-Request-Id", co.requestID)
		if payload != nil {
			hreq.Header.Set("Content-Type", "application/json")
		}
		if co.idempotencyKey != "" {
			hreq.Header.Set("Idempotency-Key", co.idempotencyKey)
		}
		for k, vs := range co.header {
			for _, v := range vs {
				hreq.Header.Add(k, v)
			}
		}
		resp, err := c.http.Do(hreq)
		if co.info != nil {
			*co.info = CallInfo{Attempts: attempt, RequestID: co.requestID}
			if resp != nil {
				co.info.StatusCode = resp.StatusCode
				co.info.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
				if id := resp.Header.Get("X-Request-Id"); id != "" {
					co.info.RequestID = id
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = fmt.Errorf("frontdesk: %s %s: %w", req.method, req.path, err)
			if retryTransport && attempt < attempts {
				if werr := c.wait(ctx, attempt, err, nil); werr != nil {
					return werr
				}
				continue
			}
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = fmt.Errorf("frontdesk: %s %s: read response: %w", req.method, req.path, err)
			if retryTransport && attempt < attempts {
				if werr := c.wait(ctx, attempt, err, nil); werr != nil {
					return werr
				}
				continue
			}
			return err
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(body, out); err != nil {
				return fmt.Errorf("frontdesk: %s %s: decode response: %w", req.method, req.path, err)
			}
			return nil
		}
		apiErr := parseError(resp, body)
		apiErr.Attempts = attempt
		if attempt < attempts && retryStatus(resp.StatusCode, retry500, retryTransport) {
			if werr := c.wait(ctx, attempt, apiErr, resp); werr != nil {
				return werr
			}
			continue
		}
		return apiErr
	}
}

// retryStatus reports whether an answer with this status is sent again.
func retryStatus(status int, retry500, retryTransport bool) bool {
	switch status {
	case http.StatusTooManyRequests:
		return true // refused before it was handled
	case http.StatusInternalServerError:
		return retry500
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return retryTransport // a proxy's answer: the request may have been applied
	}
	return false
}

func bodyReader(payload []byte) io.Reader {
	if payload == nil {
		return nil
	}
	return bytes.NewReader(payload)
}

// wait sleeps before attempt+1: exponential backoff with full jitter, or
// the server's Retry-After when it sends one; it tells OnRetry first, and
// returns early with the context's error when ctx ends.
func (c *Client) wait(ctx context.Context, attempt int, why error, resp *http.Response) error {
	d := c.retry.BaseDelay << (attempt - 1)
	if d > c.retry.MaxDelay || d <= 0 {
		d = c.retry.MaxDelay
	}
	d = time.Duration(rand.Int64N(int64(d)) + 1)
	if resp != nil {
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			d = time.Duration(s) * time.Second
		}
	}
	if c.retry.OnRetry != nil {
		c.retry.OnRetry(attempt, why, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func newRequestID() string {
	var b [8]byte
	cryptorand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// query helpers: zero values are not sent, so the server's defaults apply.
type query url.Values

func (q query) str(name, v string) {
	if v != "" {
		url.Values(q).Set(name, v)
	}
}

func (q query) int(name string, v int64) {
	if v != 0 {
		url.Values(q).Set(name, strconv.FormatInt(v, 10))
	}
}

func (q query) intPtr(name string, v *int) {
	if v != nil {
		url.Values(q).Set(name, strconv.Itoa(*v))
	}
}

func (q query) ints(name string, vs []int64) {
	for _, v := range vs {
		url.Values(q).Add(name, strconv.FormatInt(v, 10))
	}
}

func (q query) boolPtr(name string, v *bool) {
	if v != nil {
		url.Values(q).Set(name, strconv.FormatBool(*v))
	}
}

func (q query) time(name string, t time.Time) {
	if !t.IsZero() {
		url.Values(q).Set(name, t.UTC().Format(time.RFC3339Nano))
	}
}

func pathID(id int64) string { return strconv.FormatInt(id, 10) }

// Ptr returns a pointer to v: for optional request fields where the zero
// value is meaningful (Ptr(0) is priority "urgent"; Ptr(false) turns off
// automations).
func Ptr[T any](v T) *T { return &v }
