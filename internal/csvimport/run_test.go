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
