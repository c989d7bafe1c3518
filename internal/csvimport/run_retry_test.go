package csvimport_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/csvimport"
)

// TestJobRetries proves the importer's retry rules, through the client it
// sends with: a batch is repeat-safe, so server errors, proxy pages, rate
// limits and dropped connections are sent again (the same body, the same
// request id), and every other refusal stops at once.
func TestJobRetries(t *testing.T) {
	hangUp := func(w http.ResponseWriter) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	for _, test := range []struct {
		name      string
		retries   int
		answers   []func(w http.ResponseWriter) // per attempt; the last repeats
		tries     int
		wantErr   string
		status    int
		code      string
		invalid   int
		retrySeen int
	}{
		{name: "a 500 is sent again", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { writeEnvelope(w, 500, "INTERNAL_ERROR", "Internal server error.", nil) },
			func(w http.ResponseWriter) { okIngest(w, 1) },
		}, tries: 2, retrySeen: 1},
		{name: "proxy 502 and 503 pages are sent again", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { w.WriteHeader(502); io.WriteString(w, "<html>Bad gateway</html>") },
			func(w http.ResponseWriter) { w.WriteHeader(503) },
			func(w http.ResponseWriter) { okIngest(w, 1) },
		}, tries: 3, retrySeen: 2},
		{name: "a 429 is sent again after its Retry-After", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "0")
				writeEnvelope(w, 429, "RATE_LIMITED", "Too many requests.", map[string]any{"retry_after_seconds": 0})
			},
			func(w http.ResponseWriter) { okIngest(w, 1) },
		}, tries: 2, retrySeen: 1},
		{name: "a dropped connection is sent again", retries: 3, answers: []func(http.ResponseWriter){
			hangUp,
			func(w http.ResponseWriter) { okIngest(w, 1) },
		}, tries: 2, retrySeen: 1},
		{name: "a 400 is never sent again", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				writeEnvelope(w, 400, "STAGE_NOT_IN_PIPELINE", "Stage 9 is not a stage of the input node's pipeline 1.", map[string]any{"field": "stage_id"})
			},
		}, tries: 1, wantErr: "HTTP 400 STAGE_NOT_IN_PIPELINE: Stage 9", status: 400, code: "STAGE_NOT_IN_PIPELINE"},
		{name: "a 409 is never sent again", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				writeEnvelope(w, 409, "BATCH_IN_PROGRESS", "Another batch is running.", nil)
			},
		}, tries: 1, wantErr: "BATCH_IN_PROGRESS", status: 409, code: "BATCH_IN_PROGRESS"},
		{name: "a 401 detail is the message", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.WriteHeader(401)
				io.WriteString(w, `{"detail":"Invalid or expired API key. Check your credentials."}`)
			},
		}, tries: 1, wantErr: "HTTP 401 UNAUTHORIZED: Invalid or expired API key", status: 401, code: client.CodeUnauthorized},
		{name: "422 items are kept", retries: 3, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.WriteHeader(422)
				io.WriteString(w, `{"detail":[{"loc":["body","clients"],"msg":"List should have at most 500 items","type":"too_long"}]}`)
			},
		}, tries: 1, wantErr: "too_long", status: 422, code: client.CodeInvalidRequest, invalid: 1},
		{name: "retries run out", retries: 2, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { writeEnvelope(w, 500, "INTERNAL_ERROR", "Internal server error.", nil) },
		}, tries: 3, wantErr: "gave up after 3 attempts: HTTP 500 INTERNAL_ERROR", status: 500, code: "INTERNAL_ERROR", retrySeen: 2},
		{name: "no retries asked", retries: 0, answers: []func(http.ResponseWriter){
			func(w http.ResponseWriter) { writeEnvelope(w, 500, "INTERNAL_ERROR", "Internal server error.", nil) },
		}, tries: 1, wantErr: "gave up after 1 attempt: ", status: 500, code: "INTERNAL_ERROR"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var calls atomic.Int32
			var mu sync.Mutex
			var ids, bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1))
				if r.URL.Path != ingestPath || r.Header.Get("Authorization") != "Bearer pk_test" || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("request %s %s %v", r.Method, r.URL.Path, r.Header)
				}
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				ids, bodies = append(ids, r.Header.Get("X-Request-Id")), append(bodies, string(body))
				mu.Unlock()
				test.answers[min(n, len(test.answers))-1](w)
			}))
			defer srv.Close()
			var out bytes.Buffer
			job := newJob(t, csvimport.Pipeline, srv.URL, 1, &out)
			retries := 0
			job.Client = fastClient(srv.URL, test.retries, func(int, error, time.Duration) { retries++ })
			job.RequestID = func(batch int) string { return fmt.Sprintf("b-%d", batch) }
			sum, err := job.Run(context.Background())
			if int(calls.Load()) != test.tries || retries != test.retrySeen || sum.Retries != test.tries-1 {
				t.Errorf("calls %d, retries heard %d, summary retries %d; want %d, %d", calls.Load(), retries, sum.Retries, test.tries, test.retrySeen)
			}
			for i := range ids {
				if ids[i] != "b-1" || bodies[i] != bodies[0] {
					t.Errorf("attempt %d: request id %q, body %s (first %s)", i+1, ids[i], bodies[i], bodies[0])
				}
			}
			if test.wantErr == "" {
				if err != nil || sum.PipelineID != 1 || sum.Statuses["created"] != 1 {
					t.Fatalf("summary %+v err %v", sum, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), test.wantErr) {
				t.Fatalf("err = %v, want %q", err, test.wantErr)
			}
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != test.status || apiErr.ErrorCode != test.code || len(apiErr.Validation) != test.invalid {
				t.Errorf("client.Error %+v", apiErr)
			}
		})
	}
}

// TestJobStopsWaitingWhenCancelled: an interrupt during a retry's backoff
// ends the wait at once.
func TestJobStopsWaitingWhenCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(w, 500, "INTERNAL_ERROR", "x", nil)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	job := newJob(t, csvimport.Waitlist, srv.URL, 2, &out)
	job.Client = client.New(srv.URL, "pk_test", client.WithRetry(client.RetryPolicy{MaxAttempts: 6, BaseDelay: time.Hour, MaxDelay: time.Hour,
		OnRetry: func(int, error, time.Duration) { cancel() }}))
	done := make(chan error)
	go func() {
		_, err := job.Run(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		var stop *csvimport.StopError
		if !errors.Is(err, context.Canceled) || !errors.As(err, &stop) || !stop.InFlight {
			t.Errorf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after cancel")
	}
}
