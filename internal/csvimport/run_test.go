package csvimport_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
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
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/csvimport"
)

const ingestPath = "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch"

// fastClient retries a batch up to retries times, 1 ms apart; onRetry
// (optional) hears of each retry.
func fastClient(url string, retries int, onRetry ...func(int, error, time.Duration)) *client.Client {
	p := client.RetryPolicy{MaxAttempts: retries + 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	if len(onRetry) > 0 {
		p.OnRetry = onRetry[0]
	}
	return client.New(url, "pk_test", client.WithRetry(p))
}

func okIngest(w http.ResponseWriter, rows int) {
	res := map[string]any{"status": "success", "dry_run": false, "input_node_uuid": "x", "pipeline_id": 1, "stage_id": 2,
		"summary": map[string]int{"total": rows}, "results": []any{}}
	list := []any{}
	for i := range rows {
		list = append(list, map[string]any{"index": i, "status": "created", "client_id": 100 + i, "errors": []any{},
			"pipeline": map[string]any{"status": "added", "client_state_id": 7}})
	}
	res["results"] = list
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}

func writeEnvelope(w http.ResponseWriter, status int, code, msg string, details any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"status": "error", "error_code": code, "message": msg, "details": details})
}

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

// table builds an in-memory file with n rows of phones.
func table(t *testing.T, n int) *csvimport.Table {
	t.Helper()
	var b strings.Builder
	b.WriteString("ref;phone;service\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "r-%d;+3460000%04d;1\n", i, i)
	}
	tab, err := csvimport.Read(strings.NewReader(b.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func readResults(t *testing.T, data []byte, delim rune) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	r.Comma = delim
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("result file: %v\n%s", err, data)
	}
	return recs
}

func newJob(t *testing.T, kind csvimport.Kind, url string, rows int, out *bytes.Buffer) *csvimport.Job {
	t.Helper()
	tab := table(t, rows)
	m, _, err := csvimport.Detect(kind, tab.Header, nil)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := csvimport.NewResultWriter(out, kind, tab.Delimiter, true)
	if err != nil {
		t.Fatal(err)
	}
	return &csvimport.Job{Kind: kind, Table: tab, Mapping: m, Client: fastClient(url, 2), BatchSize: 2, Results: rw,
		NodeUUID: "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01", WaitlistID: 4}
}

func TestJobPipelineBatches(t *testing.T) {
	var inFlight, most atomic.Int32
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		time.Sleep(5 * time.Millisecond) // overlapping batches would show here
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		okIngest(w, len(body["clients"].([]any)))
	}))
	defer srv.Close()
	var out bytes.Buffer
	job := newJob(t, csvimport.Pipeline, srv.URL, 5, &out)
	job.OnDuplicate, job.DryRun, job.TriggerAutomations, job.StageID, job.AreaCode = "skip", true, false, 9, "34"
	var progress bytes.Buffer
	fake := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	job.Progress = csvimport.NewProgress(&progress, false, 5, fake.Now)
	job.Now = fake.Now
	sum, err := job.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() != 1 {
		t.Errorf("%d batches in flight at once", most.Load())
	}
	if len(bodies) != 3 || len(bodies[0]["clients"].([]any)) != 2 || len(bodies[2]["clients"].([]any)) != 1 {
		t.Fatalf("batches: %v", bodies)
	}
	got, _ := json.Marshal(bodies[0])
	// The service column is no pipeline field: it travels as custom data.
	want := `{"clients":[{"data":{"service":"1"},"external_id":"r-1","phone_number":"+34600000001"},` +
		`{"data":{"service":"1"},"external_id":"r-2","phone_number":"+34600000002"}],` +
		`"defaults":{"area_code":"34"},"dry_run":true,"on_duplicate":"skip","stage_id":9,"trigger_automations":false}`
	if string(got) != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if !sum.Complete || sum.Rows != 5 || sum.RowsAnswered != 5 || sum.Batches != 3 || sum.Statuses["created"] != 5 ||
		sum.Pipeline["added"] != 5 || sum.PipelineID != 1 || sum.StageID != 2 {
		t.Errorf("summary %+v", sum)
	}
	recs := readResults(t, out.Bytes(), ';')
	if len(recs) != 6 || strings.Join(recs[0], ",") != "row,external_id,status,client_id,errors,pipeline_status" ||
		strings.Join(recs[1], ",") != "1,r-1,created,100,,added" || strings.Join(recs[5], ",") != "5,r-5,created,100,,added" {
		t.Errorf("results %q", recs)
	}
	if lines := strings.Count(progress.String(), "\n"); lines != 3 || !strings.Contains(progress.String(), "progress: 5/5 rows (100%), batch 3") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestJobRefusedBatch(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if body["waitlist_id"] != float64(4) || body["skip_invalid"] != false {
			t.Errorf("body %v", body)
		}
		entries := len(body["entries"].([]any))
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"status":"success","data":{"waitlist_id":4,"clients_created":2,"entries_created":2,"skipped":0,`+
				`"summary":{"ok":0,"will_create_client":2},"rows":[{"index":0,"status":"will_create_client","errors":[],"warnings":[],"client_id":11},`+
				`{"index":1,"status":"will_create_client","errors":[],"warnings":["service 1 named twice"],"client_id":12}]}}`)
			return
		}
		_ = entries
		writeEnvelope(w, 400, "IMPORT_HAS_ERRORS", "1 of 2 rows have errors; nothing was written (skip_invalid is false).", map[string]any{
			"summary": map[string]int{"error": 1, "ok": 1},
			"rows": []any{
				map[string]any{"index": 0, "status": "ok", "errors": []any{}, "warnings": []any{}, "client_id": 3},
				map[string]any{"index": 1, "status": "error", "errors": []any{"phone: phone number is too short"}, "warnings": []any{}, "client_id": nil},
			},
		})
	}))
	defer srv.Close()
	var out bytes.Buffer
	job := newJob(t, csvimport.Waitlist, srv.URL, 5, &out)
	sum, err := job.Run(context.Background())
	var stop *csvimport.StopError
	if !errors.As(err, &stop) || stop.Batch != 2 || stop.FirstRow != 3 || stop.LastRow != 4 || stop.FailedRowCount != 1 || calls.Load() != 2 {
		t.Fatalf("err = %v (%+v), calls %d", err, stop, calls.Load())
	}
	for _, want := range []string{"batch 2 (rows 3–4) was refused: HTTP 400 IMPORT_HAS_ERRORS", "1 row of batch 2 is listed",
		"rows 1–2 were answered", "--skip-invalid", "already_waiting"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if sum.Complete || sum.RowsAnswered != 2 || sum.Statuses["will_create_client"] != 2 || sum.Statuses["refused"] != 1 ||
		sum.Statuses["error"] != 1 || sum.Statuses["not_sent"] != 1 {
		t.Errorf("summary %+v", sum)
	}
	recs := readResults(t, out.Bytes(), ';')
	want := []string{
		"row,external_id,status,client_id,errors,warnings",
		"1,r-1,will_create_client,11,,",
		"2,r-2,will_create_client,12,,service 1 named twice",
		"3,r-3,refused,,not written: batch refused (IMPORT_HAS_ERRORS); would have been ok,",
		"4,r-4,error,,phone: phone number is too short,",
		"5,r-5,not_sent,,,",
	}
	for i, w := range want {
		if i >= len(recs) || strings.Join(recs[i], ",") != w {
			t.Errorf("results %d = %q, want %q", i, recs[min(i, len(recs)-1)], w)
		}
	}
}

func TestJobStops(t *testing.T) {
	for _, test := range []struct {
		name    string
		handler func(n int32, w http.ResponseWriter, cancel func())
		calls   int32
		wantErr []string
		status  map[string]int
	}{
		{
			name: "a bad key is not retried and stops the import",
			handler: func(n int32, w http.ResponseWriter, _ func()) {
				w.WriteHeader(401)
				io.WriteString(w, `{"detail":"Invalid or expired API key. Check your credentials."}`)
			},
			calls:   1,
			wantErr: []string{"batch 1 (rows 1–2) was refused: HTTP 401", "check the API key"},
			status:  map[string]int{"refused": 2, "not_sent": 3},
		},
		{
			name: "a batch with no answer after every retry is unconfirmed",
			handler: func(n int32, w http.ResponseWriter, _ func()) {
				if n == 1 {
					okIngest(w, 2)
					return
				}
				writeEnvelope(w, 500, "INTERNAL_ERROR", "x", nil)
			},
			calls:   4, // one good batch, then three attempts of the second
			wantErr: []string{"batch 2 (rows 3–4) got no answer: gave up after 3 attempts", "run the same command again"},
			status:  map[string]int{"created": 2, "unconfirmed": 2, "not_sent": 1},
		},
		{
			name: "an interrupt during a batch",
			handler: func(n int32, w http.ResponseWriter, cancel func()) {
				if n == 2 {
					cancel()
					time.Sleep(50 * time.Millisecond)
				}
				okIngest(w, 2)
			},
			calls:   2,
			wantErr: []string{"interrupted during batch 2 (rows 3–4); that batch may or may not have been written", "updated / already_active"},
			status:  map[string]int{"created": 2, "unconfirmed": 2, "not_sent": 1},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				test.handler(calls.Add(1), w, cancel)
			}))
			defer srv.Close()
			var out bytes.Buffer
			job := newJob(t, csvimport.Pipeline, srv.URL, 5, &out)
			sum, err := job.Run(ctx)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range test.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if calls.Load() != test.calls {
				t.Errorf("%d calls, want %d", calls.Load(), test.calls)
			}
			for k, v := range test.status {
				if sum.Statuses[k] != v {
					t.Errorf("statuses %v, want %v", sum.Statuses, test.status)
					break
				}
			}
			if recs := readResults(t, out.Bytes(), ';'); len(recs) != 6 {
				t.Errorf("result file has %d lines", len(recs))
			}
		})
	}
}

func TestInterruptBeforeABatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { okIngest(w, 2) }))
	defer srv.Close()
	var out bytes.Buffer
	job := newJob(t, csvimport.Pipeline, srv.URL, 5, &out)
	var progress bytes.Buffer
	job.Progress = csvimport.NewProgress(&progress, false, 5, time.Now)
	// Cancel once the first batch is counted, before the second is sent.
	job.Progress = csvimport.NewProgress(writerFunc(func(p []byte) (int, error) { cancel(); return len(p), nil }), false, 5, time.Now)
	sum, err := job.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "interrupted before batch 2 (rows 3–4); it was not sent") {
		t.Fatalf("err = %v", err)
	}
	if sum.Statuses["created"] != 2 || sum.Statuses["not_sent"] != 3 || sum.Batches != 1 {
		t.Errorf("summary %+v", sum)
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestSummaryPrint(t *testing.T) {
	sum := &csvimport.Summary{Kind: csvimport.Pipeline, Rows: 20000, RowsAnswered: 20000, Batches: 40, Retries: 1,
		Statuses: map[string]int{"created": 19990, "updated": 10, "failed": 0}, Pipeline: map[string]int{"added": 19990, "already_active": 10},
		PipelineID: 1, StageID: 3, Elapsed: 8 * time.Second, RowsPerSecond: 2500, Complete: true, ResultsFile: "contacts.results.csv"}
	var b bytes.Buffer
	sum.Print(&b)
	want := "Imported 20,000 of 20,000 rows into pipeline 1, stage 3, in 40 batches (1 retry): 8.0s, 2,500 rows/s\n" +
		"  created                    19,990\n" +
		"  updated                        10\n" +
		"  pipeline: added 19,990, already_active 10\n" +
		"Results: contacts.results.csv\n"
	if b.String() != want {
		t.Errorf("\n got:\n%s\nwant:\n%s", b.String(), want)
	}
	wl := &csvimport.Summary{Kind: csvimport.Waitlist, WaitlistID: 2, Rows: 3, RowsAnswered: 0, Batches: 1,
		Statuses: map[string]int{"refused": 2, "error": 1}, Elapsed: 4 * time.Millisecond}
	b.Reset()
	wl.Print(&b)
	if !strings.HasPrefix(b.String(), "Stopped after 0 of 3 rows into waiting list 2, in 1 batch: 4ms, 0 rows/s\n  error") {
		t.Errorf("got:\n%s", b.String())
	}
}

func TestProgress(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	var b bytes.Buffer
	p := csvimport.NewProgress(&b, false, 1200, fake.Now)
	fake.Advance(time.Second)
	p.Add(500)
	p.Note("batch failed; sending it again")
	fake.Advance(time.Second)
	p.Add(500)
	p.Finish()
	want := "progress: 500/1,200 rows (41%), batch 1, 500 rows/s, elapsed 1.0s, ETA 1.4s\n" +
		"batch failed; sending it again\n" +
		"progress: 1,000/1,200 rows (83%), batch 2, 500 rows/s, elapsed 2.0s, ETA 400ms\n"
	if b.String() != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	p = csvimport.NewProgress(&b, true, 20000, fake.Now)
	fake.Advance(2 * time.Second)
	p.Add(5000)
	p.Note("note")
	p.Finish()
	out := b.String()
	for _, want := range []string{"\r███████░░░░░░░░░░░░░░░░░░░░░░░ 5,000/20,000 rows  25%  2,500 rows/s  ETA 6.0s\x1b[K", "\r\x1b[Knote\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal progress lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the bar's line is not ended: %q", out)
	}

	// No writer: nothing happens, nothing breaks.
	p = csvimport.NewProgress(nil, true, 10, fake.Now)
	p.Add(10)
	p.Note("x")
	p.Finish()
}

func TestFormatting(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20000: "20,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := csvimport.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850ms", 4200 * time.Millisecond: "4.2s",
		187 * time.Second: "3m07s", 62 * time.Minute: "1h02m"} {
		if got := csvimport.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// failsafe bounds a wait that only a broken pipeline would make long: the
// tests below do not time anything, they fail instead of hanging.
const failsafe = 20 * time.Second

// numberedIngest answers a batch with a client id per row that names the
// row (1000 + external id number), so the result file shows which answer
// went to which row.
func numberedIngest(t *testing.T, w http.ResponseWriter, r *http.Request) (first int) {
	var body struct {
		Clients []struct {
			ExternalID string `json:"external_id"`
		} `json:"clients"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Errorf("body: %v", err)
	}
	list := []any{}
	for i, c := range body.Clients {
		var n int
		fmt.Sscanf(c.ExternalID, "r-%d", &n)
		if i == 0 {
			first = n
		}
		list = append(list, map[string]any{"index": i, "status": "created", "client_id": 1000 + n, "errors": []any{},
			"pipeline": map[string]any{"status": "added", "client_state_id": 7}})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"status": "success", "pipeline_id": 1, "stage_id": 2, "results": list})
	return first
}

// wantNumberedResults checks a result file of rows 1..n answered by
// numberedIngest, in file order.
func wantNumberedResults(t *testing.T, data []byte, n int) {
	t.Helper()
	recs := readResults(t, data, ';')
	if len(recs) != n+1 {
		t.Fatalf("result file has %d lines, want %d", len(recs), n+1)
	}
	for i := 1; i <= n; i++ {
		if got, want := strings.Join(recs[i], ","), fmt.Sprintf("%d,r-%d,created,%d,,added", i, i, 1000+i); got != want {
			t.Errorf("result line %d = %q, want %q", i, got, want)
		}
	}
}

// While batch 1 is in flight, batch 2 is mapped and encoded but not sent;
// no batch is prepared more than one ahead of the one in flight, and
// batches still go out one at a time, in order.
func TestJobPreparesTheNextBatchWhileOneIsInFlight(t *testing.T) {
	var started, answered, inFlight, most atomic.Int32
	secondReady := make(chan struct{})
	var mu sync.Mutex
	var order []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := started.Add(1)
		if cur := inFlight.Add(1); cur > most.Load() {
			most.Store(cur)
		}
		defer inFlight.Add(-1)
		if n == 1 {
			select {
			case <-secondReady:
			case <-time.After(failsafe):
				t.Error("batch 2 was not prepared while batch 1 was in flight")
			}
			if got := started.Load(); got != 1 {
				t.Errorf("%d batches sent while batch 1 was in flight", got)
			}
		}
		first := numberedIngest(t, w, r)
		mu.Lock()
		order = append(order, first)
		mu.Unlock()
		answered.Add(1)
	}))
	defer srv.Close()
	var out bytes.Buffer
	job := newJob(t, csvimport.Pipeline, srv.URL, 7, &out)
	csvimport.OnPrepared(job, func(batch int) {
		// Batch n is prepared only once batch n-1 is taken to be sent,
		// that is once batch n-2 is answered.
		if a := int(answered.Load()); a < batch-2 {
			t.Errorf("batch %d prepared with only %d batches answered", batch, a)
		}
		if batch == 2 {
			close(secondReady)
		}
	})
	sum, err := job.Run(context.Background())
	if err != nil || !sum.Complete || sum.Batches != 4 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	if most.Load() != 1 || fmt.Sprint(order) != "[1 3 5 7]" {
		t.Errorf("%d batches in flight at once; batches began at rows %v", most.Load(), order)
	}
	wantNumberedResults(t, out.Bytes(), 7)
}

// gatedWriter is a result file whose first write after the header waits
// for open; it records what was written.
type gatedWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	open   chan struct{}
	t      *testing.T
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.writes++
	n := g.writes
	g.mu.Unlock()
	if n == 2 {
		select {
		case <-g.open:
		case <-time.After(failsafe):
			g.t.Error("the result file held up sending")
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gatedWriter) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// Writing the result file is off the critical path: batch 2 is sent while
// batch 1's results are still being written. The file lags by at most one
// batch (batch n+2 leaves only once batch n is in the file), and its lines
// are in file order.
func TestJobWritesResultsWhileTheNextBatchIsInFlight(t *testing.T) {
	file := &gatedWriter{open: make(chan struct{}), t: t}
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if n == 2 {
			close(file.open) // batch 2 is here while batch 1's lines wait
		}
		if n >= 3 {
			// Batches 1..n-2 are written and flushed.
			lines := strings.Count(file.String(), "\n") - 1
			if lines < 2*(n-2) {
				t.Errorf("batch %d sent with %d result lines written, want rows 1–%d", n, lines, 2*(n-2))
			}
		}
		numberedIngest(t, w, r)
	}))
	defer srv.Close()
	tab := table(t, 9)
	m, _, err := csvimport.Detect(csvimport.Pipeline, tab.Header, nil)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := csvimport.NewResultWriter(file, csvimport.Pipeline, tab.Delimiter, false)
	if err != nil {
		t.Fatal(err)
	}
	job := &csvimport.Job{Kind: csvimport.Pipeline, Table: tab, Mapping: m, Client: fastClient(srv.URL, 0), BatchSize: 2,
		Results: rw, NodeUUID: "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"}
	sum, err := job.Run(context.Background())
	if err != nil || !sum.Complete || calls.Load() != 5 {
		t.Fatalf("summary %+v, err %v, %d calls", sum, err, calls.Load())
	}
	// Run returns with every line written.
	wantNumberedResults(t, []byte(file.String()), 9)
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n++; f.n > 1 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// A result file that cannot be written stops the import: what was sent is
// no longer recorded anywhere.
func TestJobStopsWhenTheResultFileFails(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		numberedIngest(t, w, r)
	}))
	defer srv.Close()
	tab := table(t, 20)
	m, _, _ := csvimport.Detect(csvimport.Pipeline, tab.Header, nil)
	rw, err := csvimport.NewResultWriter(&failingWriter{}, csvimport.Pipeline, tab.Delimiter, false)
	if err != nil {
		t.Fatal(err)
	}
	job := &csvimport.Job{Kind: csvimport.Pipeline, Table: tab, Mapping: m, Client: fastClient(srv.URL, 0), BatchSize: 2,
		Results: rw, NodeUUID: "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"}
	sum, err := job.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "disk full") || sum.Complete {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	// Batch 1's lines fail while batch 2 is in flight; handing batch 2's
	// results over waits for that write, so batch 3 is never sent.
	if n := calls.Load(); n > 2 {
		t.Errorf("%d batches sent after the result file failed", n)
	}
}
