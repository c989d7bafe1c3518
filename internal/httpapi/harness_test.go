package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// Keys of the fixtures.
const (
	acmeKey  = "pk_test_acme_main"
	otherKey = "pk_test_other_main"
)

// testNow is the harness clock's start: a Monday.
var testNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// harness is a real server on a real store, provisioned from workspace files
// (the same format users apply).
type harness struct {
	t     *testing.T
	store *db.DB
	clock *clock.Fake
	srv   *httpapi.Server
	// ids holds every applied file's ids by account slug.
	ids map[string]*workspace.Result
}

// newHarness applies the acme fixture (the README's example workspace), the
// "other" tenant, and any extra fixture files, then builds the server.
func newHarness(t *testing.T, store *db.DB, extra ...string) *harness {
	t.Helper()
	h := &harness{t: t, store: store, clock: clock.NewFake(testNow), ids: map[string]*workspace.Result{}}
	for _, f := range append([]string{"../workspace/testdata/acme.yaml", "testdata/other.yaml"}, extra...) {
		h.apply(f)
	}
	h.srv = httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, AdminToken: "admin-secret",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return h
}

// apply applies one workspace file and records its ids.
func (h *harness) apply(path string) *workspace.Result {
	h.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.applyData(data)
}

func (h *harness) applyData(data []byte) *workspace.Result {
	h.t.Helper()
	res, err := (&workspace.Applier{DB: h.store, Now: h.clock.Now, Targets: outbound.Policy{AllowPrivate: true}}).Apply(context.Background(), data)
	if err != nil {
		h.t.Fatalf("apply: %v", err)
	}
	if prev, ok := h.ids[res.Account.Slug]; ok {
		mergeIDs(prev, res)
	} else {
		h.ids[res.Account.Slug] = res
	}
	return res
}

func mergeIDs(dst, src *workspace.Result) {
	for _, pair := range []struct{ d, s map[string]int64 }{
		{dst.IDs.Services, src.IDs.Services}, {dst.IDs.Professionals, src.IDs.Professionals},
		{dst.IDs.EventTypes, src.IDs.EventTypes}, {dst.IDs.Users, src.IDs.Users}, {dst.IDs.AIAgents, src.IDs.AIAgents},
		{dst.IDs.DispositionTags, src.IDs.DispositionTags}, {dst.IDs.Waitlists, src.IDs.Waitlists},
		{dst.IDs.Pipelines, src.IDs.Pipelines}, {dst.IDs.Stages, src.IDs.Stages}, {dst.IDs.Clients, src.IDs.Clients},
		{dst.IDs.Conversations, src.IDs.Conversations},
	} {
		for k, v := range pair.s {
			pair.d[k] = v
		}
	}
	for k, v := range src.IDs.InputNodes {
		dst.IDs.InputNodes[k] = v
	}
}

// acme returns the acme account's ids.
func (h *harness) acme() workspace.IDs { return h.ids["acme"].IDs }

// other returns the other tenant's ids.
func (h *harness) other() workspace.IDs { return h.ids["other"].IDs }

type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// do sends a request with key as bearer ("" sends none). body may be nil, a
// string (sent verbatim) or any value (sent as JSON).
func (h *harness) do(method, path, key string, body any) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	res := response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
	json.Unmarshal(rec.Body.Bytes(), &res.Body)
	checkContract(h.t, req, res) // openapi_test.go: the response must match openapi.json
	return res
}

// must fails the test unless the response has the status.
func (r response) must(t *testing.T, status int) response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Raw)
	}
	return r
}

// errorCode returns the calendar envelope's error_code ("" if none).
func (r response) errorCode() string {
	s, _ := r.Body["error_code"].(string)
	return s
}

// get walks the decoded body: get("data", 0, "id").
func (r response) get(path ...any) any {
	var cur any = r.Body
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			cur = l[k]
		}
	}
	return cur
}

// num is get as a number (JSON numbers decode as float64).
func (r response) num(path ...any) float64 {
	f, _ := r.get(path...).(float64)
	return f
}

// str is get as a string.
func (r response) str(path ...any) string {
	s, _ := r.get(path...).(string)
	return s
}

// list is get as a list.
func (r response) list(path ...any) []any {
	l, _ := r.get(path...).([]any)
	return l
}

// count returns the number of rows of table matching where (for checks that
// nothing was written).
func (h *harness) count(table, where string, args ...any) int {
	h.t.Helper()
	var n int
	q := "SELECT COUNT(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	if err := h.store.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// accountOf loads an account by slug.
func accountOf(t *testing.T, h *harness, slug string) account.Account {
	t.Helper()
	a, err := account.BySlug(context.Background(), h.store, slug)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
