package csvimport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/csvimport"
	"github.com/frontdesk/frontdesk/internal/logtest"
)

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
	logtest.Buffer
	mu     sync.Mutex // guards writes
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
	return g.Buffer.Write(p)
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
