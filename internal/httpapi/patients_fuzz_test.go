package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// FuzzPatientBody sends arbitrary bytes as the body of the patient API's
// two POST routes (acme's page) on SQLite and, when FRONTDESK_TEST_POSTGRES
// is set, PostgreSQL. Whatever the input, the answer is 201, 202, a 400,
// 404 or 429 in the calendar error envelope, or a 422 of {loc, msg, type}
// items at ['body', …] — never a 500 — it carries the patient headers, and
// it matches openapi.json.
// `go test` runs the seeds of testdata/fuzz/FuzzPatientBody; fuzz with
//
//	go test ./internal/httpapi -run '^$' -fuzz FuzzPatientBody -fuzztime 60s
func FuzzPatientBody(f *testing.F) {
	engines := []db.Engine{db.SQLite}
	if os.Getenv(dbtest.EnvPostgres) != "" {
		engines = append(engines, db.Postgres)
	}
	type target struct {
		engine db.Engine
		srv    *httpapi.Server
	}
	var targets []target
	for _, e := range engines {
		store := dbtest.Open(f, e)
		clk := clock.NewFake(testNow)
		for _, file := range append([]string{"../workspace/testdata/acme.yaml", "testdata/other.yaml"}, patientFixtures...) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			if _, err := (&workspace.Applier{DB: store, Now: clk.Now}).Apply(context.Background(), data); err != nil {
				f.Fatal(err)
			}
		}
		// The per-address limit would turn a long run into 429s only.
		srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clk, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			RateLimit: httpapi.RateLimit{Patients: ratelimit.Limit{PerSecond: 1e9, Burst: 1 << 30}}})
		targets = append(targets, target{e, srv})
	}
	routes := []string{bookPath + "/acme/appointments", bookPath + "/acme/verification"}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		path := routes[int(route)%len(routes)]
		for _, tg := range targets {
			req := httptest.NewRequest("POST", path, bytes.NewReader(body))
			rec := httptest.NewRecorder()
			tg.srv.ServeHTTP(rec, req)
			checkContract(t, req, response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()})
			what := string(tg.engine) + ": POST " + path + " " + truncate(body, 300)
			for k, v := range patientHeaders {
				if rec.Header().Get(k) != v {
					t.Errorf("%s -> %d without %s: %s", what, rec.Code, k, v)
				}
			}
			var m map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
				t.Fatalf("%s -> %d, not a JSON object: %q", what, rec.Code, rec.Body)
			}
			switch rec.Code {
			case 201, 202:
				if m["status"] != "success" {
					t.Errorf("%s -> %d: %s", what, rec.Code, rec.Body)
				}
			case 422:
				items, _ := m["detail"].([]any)
				if len(items) == 0 {
					t.Fatalf("%s -> 422 without items: %s", what, rec.Body)
				}
				for _, it := range items {
					p, _ := it.(map[string]any)
					loc, _ := p["loc"].([]any)
					typ, _ := p["type"].(string)
					if len(loc) == 0 || loc[0] != "body" || p["msg"] == "" || !slices.Contains(pydanticTypes, typ) {
						t.Errorf("%s -> 422 item %v", what, it)
					}
				}
			case 400, 404, 429:
				if m["status"] != "error" || m["error_code"] == "" || m["message"] == "" {
					t.Errorf("%s -> %d not in the error envelope: %s", what, rec.Code, rec.Body)
				}
			default:
				t.Fatalf("%s -> %d: %s", what, rec.Code, rec.Body)
			}
		}
	})
}
