package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The request decoders under fuzzing: arbitrary bytes as the body of every
// route that reads one, and arbitrary query strings on every GET, sent
// through the real handler (acme's key, acme's ids in the path) on SQLite
// and, when FRONTDESK_TEST_POSTGRES is set, PostgreSQL. Whatever the input,
// the answer is one of the contract's envelopes with a status the contract
// allows, never a 500, a 422 lists {loc, msg, type} items with the
// pydantic type names (docs/contract.md, Validation errors), and the response matches
// openapi.json. `go test` runs the seeds of testdata/fuzz/; fuzz with e.g.
//
//	go test ./internal/httpapi -run '^$' -fuzz FuzzPublicBody -fuzztime 60s

// fuzzTarget is one server on one engine, with the routes (acme's ids in
// the path) that take a body and the GET routes.
type fuzzTarget struct {
	engine             db.Engine
	srv                *httpapi.Server
	bodyRoutes, routes []fuzzRoute
}

type fuzzRoute struct{ method, path string }

// fuzzServers provisions acme (and the other tenant) on every available
// engine.
func fuzzServers(f *testing.F) []*fuzzTarget {
	f.Helper()
	engines := []db.Engine{db.SQLite}
	if os.Getenv(dbtest.EnvPostgres) != "" {
		engines = append(engines, db.Postgres)
	}
	var targets []*fuzzTarget
	for _, e := range engines {
		store := dbtest.Open(f, e)
		clk := clock.NewFake(testNow)
		var ids workspace.IDs
		for _, file := range []string{"../workspace/testdata/acme.yaml", "testdata/other.yaml"} {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			res, err := (&workspace.Applier{DB: store, Now: clk.Now}).Apply(context.Background(), data)
			if err != nil {
				f.Fatal(err)
			}
			if res.Account.Slug == "acme" {
				ids = res.IDs
			}
		}
		ft := &fuzzTarget{engine: e, srv: httpapi.NewServer(httpapi.Config{DB: store, Clock: clk, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})}
		// One waiting-list entry, so {entry_id} names something.
		body := fmt.Sprintf(`{"phone": "+34611007001", "service_ids": [%d]}`, ids.Services["cleaning"])
		rec := ft.send("POST", isoPub+"/calendar/waitlist/entries", "", []byte(body))
		var out struct {
			Data struct {
				Entries []struct {
					ID int64 `json:"id"`
				} `json:"entries"`
			} `json:"data"`
		}
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &out) != nil || len(out.Data.Entries) != 1 {
			f.Fatalf("seed entry: %d %s", rec.Code, rec.Body)
		}
		entryID := out.Data.Entries[0].ID
		pipe, client, node := ids.Pipelines["sales"], ids.Clients["maria"], ids.InputNodes["sales/web"]
		// The order is the seeds' route numbers: append only.
		ft.bodyRoutes = []fuzzRoute{
			{"POST", isoPub + "/calendar/events"},
			{"POST", isoPub + "/calendar/waitlist/entries"},
			{"POST", isoPub + "/calendar/waitlist/entries/batch"},
			{"POST", isoPub + "/calendar/waitlist/entries/remove"},
			{"DELETE", fmt.Sprintf("%s/calendar/waitlist/entries/%d", isoPub, entryID)},
			{"POST", fmt.Sprintf("%s/leadflow/pipelines/%d/clients/add", isoPub, pipe)},
			{"POST", fmt.Sprintf("%s/leadflow/pipelines/%d/clients/remove", isoPub, pipe)},
			{"PATCH", fmt.Sprintf("%s/leadflow/pipelines/%d/clients/%d/move", isoPub, pipe, client)},
			{"POST", isoPub + "/leadflow/ingest/" + node + "/batch"},
			{"POST", isoPub + "/leadflow/ingest/" + node},
		}
		ft.routes = []fuzzRoute{
			{"GET", isoPub + "/calendar/services"},
			{"GET", isoPub + "/calendar/availability"},
			{"GET", isoPub + "/calendar/waitlist/entries"},
			{"GET", fmt.Sprintf("%s/calendar/waitlist/entries/%d", isoPub, entryID)},
			{"GET", isoPub + "/calendar/waitlist/summary"},
			{"GET", isoPub + "/leadflow/pipelines"},
			{"GET", fmt.Sprintf("%s/leadflow/pipelines/%d/stages", isoPub, pipe)},
			{"GET", fmt.Sprintf("%s/leadflow/pipelines/%d/input-nodes", isoPub, pipe)},
			{"GET", fmt.Sprintf("%s/leadflow/pipelines/%d/clients", isoPub, pipe)},
			{"GET", isoPub + "/chat/conversations"},
			{"GET", fmt.Sprintf("%s/chat/conversations/%d/messages", isoPub, ids.Conversations["c1"])},
		}
		targets = append(targets, ft)
	}
	return targets
}

// send runs one request through the handler with acme's key.
func (ft *fuzzTarget) send(method, path, rawQuery string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.URL.RawQuery = rawQuery
	req.Header.Set("Authorization", "Bearer "+acmeKey)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	ft.srv.ServeHTTP(rec, req)
	return rec
}

// pydanticTypes are the 422 item types docs/contract.md (Validation errors)
// allows.
var pydanticTypes = []string{"missing", "int_parsing", "int_type", "string_type", "bool_parsing", "bool_type", "float_parsing",
	"list_type", "dict_type", "string_too_long", "too_short", "too_long", "greater_than_equal", "less_than_equal", "literal_error",
	"date_from_datetime_parsing", "datetime_parsing", "uuid_parsing", "json_invalid", "model_type",
	"value_error"} // additive (openapi.json): a cursor not issued here, a malformed query string

// checkAnswer asserts the answer is one of the contract's envelopes with a
// status the contract allows for a keyed request on a known route.
func checkAnswer(t *testing.T, ft *fuzzTarget, method, path, rawQuery string, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	what := fmt.Sprintf("%s: %s %s?%s %q", ft.engine, method, path, rawQuery, truncate(body, 300))
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%s -> %d, not a JSON object: %q", what, rec.Code, rec.Body)
	}
	switch rec.Code {
	case 200, 201:
		if m["status"] != "success" {
			t.Errorf("%s -> %d without status success: %s", what, rec.Code, rec.Body)
		}
	case 422:
		items, ok := m["detail"].([]any)
		if !ok || len(items) == 0 {
			t.Fatalf("%s -> 422 without detail items: %s", what, rec.Body)
		}
		for _, it := range items {
			p, _ := it.(map[string]any)
			loc, _ := p["loc"].([]any)
			msg, _ := p["msg"].(string)
			typ, _ := p["type"].(string)
			if len(loc) == 0 || !slices.Contains([]any{"body", "query", "path"}, loc[0]) || msg == "" || !slices.Contains(pydanticTypes, typ) {
				t.Errorf("%s -> 422 item %v is not {loc: [body|query|path, ...], msg, type}: %s", what, it, rec.Body)
			}
		}
	case 400, 404, 409, 413:
		code, _ := m["error_code"].(string)
		msg, _ := m["message"].(string)
		_, hasDetails := m["details"]
		if m["status"] != "error" || code == "" || msg == "" || !hasDetails {
			t.Errorf("%s -> %d not in the error envelope: %s", what, rec.Code, rec.Body)
		}
	default:
		t.Fatalf("%s -> %d: %s", what, rec.Code, rec.Body)
	}
	req := httptest.NewRequest(method, path, nil)
	req.URL.RawQuery = rawQuery
	checkContract(t, req, response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes(), Body: m})
}

func FuzzPublicBody(f *testing.F) {
	targets := fuzzServers(f)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		for _, ft := range targets {
			r := ft.bodyRoutes[int(route)%len(ft.bodyRoutes)]
			rec := ft.send(r.method, r.path, "", body)
			checkAnswer(t, ft, r.method, r.path, "", body, rec)
			// JSON text is UTF-8 (RFC 8259, section 8.1): never stored altered.
			if !utf8.Valid(body) && !onlyProblem(rec, "json_invalid", "body") {
				t.Errorf("%s: %s %s with invalid UTF-8 %q -> %d, want one json_invalid at [body]: %s", ft.engine, r.method, r.path, truncate(body, 300), rec.Code, rec.Body)
			}
		}
	})
}

func FuzzPublicQuery(f *testing.F) {
	targets := fuzzServers(f)
	f.Fuzz(func(t *testing.T, route uint8, query string) {
		for _, ft := range targets {
			r := ft.routes[int(route)%len(ft.routes)]
			rec := ft.send(r.method, r.path, query, nil)
			checkAnswer(t, ft, r.method, r.path, query, nil, rec)
			// What Go cannot parse whole is refused, never half-read.
			if _, err := url.ParseQuery(query); err != nil && !onlyProblem(rec, "value_error", "query") {
				t.Errorf("%s: %s %s?%s -> %d, want one value_error at [query]: %s", ft.engine, r.method, r.path, query, rec.Code, rec.Body)
			}
		}
	})
}

// onlyProblem reports whether rec is a 422 with the single item typ at loc.
func onlyProblem(rec *httptest.ResponseRecorder, typ string, loc ...any) bool {
	var body struct {
		Detail []struct {
			Loc  []any  `json:"loc"`
			Type string `json:"type"`
		} `json:"detail"`
	}
	return rec.Code == 422 && json.Unmarshal(rec.Body.Bytes(), &body) == nil && len(body.Detail) == 1 &&
		body.Detail[0].Type == typ && slices.Equal(body.Detail[0].Loc, loc)
}
