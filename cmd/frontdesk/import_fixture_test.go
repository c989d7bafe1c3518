// The fixture of the `frontdesk import` tests: a real server on a real store
// behind a proxy that fails on demand, and readers of the result file and the
// summary.

package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/csvimport"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const (
	importKey  = "pk_test_acme_main"
	importNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"
)

// flaky sits in front of the real server. failAt names calls (1-based)
// that answer 500: "before" without reaching the server (the batch was not
// written), "after" once the server has answered (the batch was written and
// its answer lost: the retry must converge). It also records how many
// batches were ever in flight at once.
type flaky struct {
	next http.Handler

	mu          sync.Mutex
	calls       int
	failAt      map[int]string
	inFlight    int
	maxInFlight int
	onCall      func(n int)
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	mode := f.failAt[n]
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	onCall := f.onCall
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if onCall != nil {
		onCall(n)
	}
	switch mode {
	case "before":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"status":"error","error_code":"INTERNAL_ERROR","message":"Internal server error. The request may be retried.","details":null}`)
	case "after":
		f.next.ServeHTTP(httptest.NewRecorder(), r)
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"status":"error","error_code":"INTERNAL_ERROR","message":"lost answer","details":null}`)
	default:
		f.next.ServeHTTP(w, r)
	}
}

// failNext makes the k-th call from now (1-based) fail in mode.
func (f *flaky) failNext(k int, mode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failAt = map[int]string{f.calls + k: mode}
}

func (f *flaky) stats() (calls, most int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, f.maxInFlight
}

// importFixture is a real server on a real store provisioned with the acme
// workspace, behind a flaky proxy.
type importFixture struct {
	t          *testing.T
	store      *db.DB
	proxy      *flaky
	url        string
	acctID     int64
	waitlistID int64
	dir        string
}

func newImportFixture(t *testing.T, e db.Engine) *importFixture {
	t.Helper()
	store := dbtest.Open(t, e)
	data, err := os.ReadFile("../../internal/workspace/testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&workspace.Applier{DB: store, Now: clock.System{}.Now}).Apply(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	proxy := &flaky{next: httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: quiet})}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return &importFixture{t: t, store: store, proxy: proxy, url: srv.URL, acctID: res.Account.ID,
		waitlistID: res.IDs.Waitlists["main"], dir: t.TempDir()}
}

// run runs "frontdesk import ..." in-process with the fixture's address and
// key in the environment.
func (fx *importFixture) run(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	fx.t.Helper()
	var out, errb bytes.Buffer
	env := &Env{
		Getenv: func(k string) string {
			switch k {
			case "FRONTDESK_BASE_URL":
				return fx.url
			case "FRONTDESK_API_KEY":
				return importKey
			}
			return ""
		},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Clock: clock.System{},
	}
	code = run(ctx, append([]string{"import"}, args...), env)
	return code, out.String(), errb.String()
}

func (fx *importFixture) count(table, where string, args ...any) int {
	fx.t.Helper()
	q := "SELECT COUNT(*) FROM " + table + " WHERE account_id = ?"
	if where != "" {
		q += " AND " + where
	}
	var n int
	if err := fx.store.QueryRow(context.Background(), q, append([]any{fx.acctID}, args...)...).Scan(&n); err != nil {
		fx.t.Fatal(err)
	}
	return n
}

// write writes a file into the fixture's directory.
func (fx *importFixture) write(name, content string) string {
	fx.t.Helper()
	p := filepath.Join(fx.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		fx.t.Fatal(err)
	}
	return p
}

// results reads a result file as records keyed by column name.
func readResultFile(t *testing.T, path string) []map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	r.Comma = csvimport.DetectDelimiter(strings.SplitN(string(bytes.TrimPrefix(data, []byte("\uFEFF"))), "\n", 2)[0])
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("result file: %v", err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

func statusCounts(rows []map[string]string, col string) map[string]int {
	out := map[string]int{}
	for _, r := range rows {
		out[r[col]]++
	}
	return out
}

func sameCounts(a, b map[string]int) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func decodeSummary(t *testing.T, stdout string) csvimport.Summary {
	t.Helper()
	var s csvimport.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, stdout)
	}
	return s
}
