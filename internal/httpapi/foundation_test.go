package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/valid"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// newFoundationServer provisions the acme fixture and adds two routes that
// exist only in this test: one with a schema to validate and one that panics.
func newFoundationServer(t *testing.T, store *db.DB) *Server {
	t.Helper()
	data, err := readFixture("acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	if _, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{DB: store, Clock: clock.NewFake(now), AdminToken: "admin-secret", Log: quietLog})
	s.handle("POST "+publicPrefix+"/test/echo", func(w http.ResponseWriter, r *http.Request) error {
		body, err := readJSON(w, r, false)
		if err != nil {
			return err
		}
		rep := &valid.Report{}
		q := rep.Query(r.URL.Query())
		q.Int("limit", 1, 50)
		o := rep.Object(body, "model_type", "body")
		o.Require("name", "client")
		o.Str("name", 10)
		o.IntRange("priority", 0, 3)
		o.Bool("dry_run")
		o.Enum("on_duplicate", "update", "skip", "fail")
		if c := o.Sub("client"); c != nil {
			c.Str("phone", 0)
		}
		o.List("clients", 1, 500)
		if err := rep.Err(); err != nil {
			return err
		}
		writeJSON(w, 200, map[string]string{"status": "success"})
		return nil
	})
	s.handle("GET "+publicPrefix+"/test/panic", func(w http.ResponseWriter, r *http.Request) error {
		panic("secret internal detail: SELECT * FROM clients")
	})
	return s
}

func readFixture(name string) ([]byte, error) {
	return readFile("../workspace/testdata/" + name)
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func do(t *testing.T, h http.Handler, method, path, key, body string, hdr ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := response{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	json.Unmarshal(rec.Body.Bytes(), &res.body)
	return res
}

func TestAuthentication(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		s := newFoundationServer(t, store)
		const invalid = `{"detail":"Invalid or expired API key. Check your credentials."}`
		for _, test := range []struct {
			name, path, header string
			status             int
			body               string
		}{
			{"no header", "/api/v2/public/calendar/services", "", 401, `{"detail":"Unauthorized"}`},
			{"unknown path without key", "/api/v2/public/nope", "", 401, `{"detail":"Unauthorized"}`},
			{"basic scheme", "/api/v2/public/test/panic", "Basic abc", 401, `{"detail":"Unauthorized"}`},
			{"bearer without key", "/api/v2/public/test/panic", "Bearer ", 401, `{"detail":"Unauthorized"}`},
			{"unknown key", "/api/v2/public/nope", "Bearer pk_nope_nope_nope", 401, invalid},
			{"malformed key", "/api/v2/public/nope", "Bearer sk_live_123", 401, invalid},
			{"expired key", "/api/v2/public/nope", "Bearer pk_test_acme_old", 401, invalid},
			{"revoked key", "/api/v2/public/nope", "Bearer pk_test_acme_gone", 401, invalid},
			{"valid key, lower-case scheme, unknown path", "/api/v2/public/nope", "bearer pk_test_acme_main", 404, ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := do(t, s, "GET", test.path, "", "", "Authorization", test.header)
				if res.status != test.status {
					t.Fatalf("status = %d, want %d (%s)", res.status, test.status, res.raw)
				}
				if test.body != "" && strings.TrimSpace(res.raw) != test.body {
					t.Errorf("body = %s, want %s", res.raw, test.body)
				}
				if _, has := res.body["error_code"]; test.status == 401 && has {
					t.Errorf("401 carries error_code: %s", res.raw)
				}
			})
		}
		// Only GET of the OpenAPI document is public.
		if res := do(t, s, "POST", "/api/v2/public/openapi.json", "", ""); res.status != 401 {
			t.Errorf("POST openapi.json without a key = %d, want 401", res.status)
		}
		// Operational endpoints need no key.
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			if res := do(t, s, "GET", path, "", ""); res.status != 200 {
				t.Errorf("%s = %d", path, res.status)
			}
		}
	})
}

func TestRoutingAndEnvelopes(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		s := newFoundationServer(t, store)
		const key = "pk_test_acme_main"

		res := do(t, s, "GET", "/api/v2/public/does/not/exist", key, "")
		assertEnvelope(t, res, 404, "NOT_FOUND")
		res = do(t, s, "GET", "/api/v2/public/test/echo", key, "")
		assertEnvelope(t, res, 405, "METHOD_NOT_ALLOWED")
		if res.header.Get("Allow") == "" {
			t.Error("405 without Allow header")
		}

		res = do(t, s, "GET", "/api/v2/public/test/panic", key, "")
		assertEnvelope(t, res, 500, "INTERNAL_ERROR")
		if strings.Contains(res.raw, "SELECT") || strings.Contains(res.raw, "secret") {
			t.Errorf("500 leaks internals: %s", res.raw)
		}

		big := `{"name":"` + strings.Repeat("x", 6<<20) + `"}`
		assertEnvelope(t, do(t, s, "POST", "/api/v2/public/test/echo", key, big), 413, "PAYLOAD_TOO_LARGE")

		// X-Request-Id is echoed, or generated.
		if got := do(t, s, "GET", "/healthz", "", "", "X-Request-Id", "abc-123").header.Get("X-Request-Id"); got != "abc-123" {
			t.Errorf("request id = %q", got)
		}
		if got := do(t, s, "GET", "/healthz", "", "").header.Get("X-Request-Id"); got == "" {
			t.Error("no request id generated")
		}
	})
}

func assertEnvelope(t *testing.T, res response, status int, code string) {
	t.Helper()
	if res.status != status || res.body["status"] != "error" || res.body["error_code"] != code {
		t.Fatalf("got %d %s, want %d %s", res.status, res.raw, status, code)
	}
	if _, ok := res.body["message"].(string); !ok {
		t.Errorf("envelope without message: %s", res.raw)
	}
	if _, ok := res.body["details"]; !ok {
		t.Errorf("envelope without details key: %s", res.raw)
	}
}

func TestValidationItems(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		s := newFoundationServer(t, store)
		const key = "pk_test_acme_main"
		for _, test := range []struct {
			name, query, body string
			want              []string // "loc|type"
		}{
			{"bad json", "", `{"name": `, []string{`["body"]|json_invalid`}},
			{"missing fields", "", `{}`, []string{`["body","name"]|missing`, `["body","client"]|missing`}},
			{"body not object", "", `[1]`, []string{`["body"]|model_type`}},
			{"many at once", "?limit=abc", `{"name": 5, "client": "x", "priority": 7, "dry_run": "maybe", "on_duplicate": "merge", "clients": []}`, []string{
				`["query","limit"]|int_parsing`, `["body","name"]|string_type`,
				`["body","priority"]|less_than_equal`, `["body","dry_run"]|bool_parsing`, `["body","on_duplicate"]|literal_error`, `["body","client"]|model_type`,
				`["body","clients"]|too_short`,
			}},
			{"nested and ranges", "?limit=0", `{"name": "abcdefghijkl", "client": {"phone": 600}, "priority": -1, "dry_run": [], "clients": {}}`, []string{
				`["query","limit"]|greater_than_equal`, `["body","name"]|string_too_long`,
				`["body","priority"]|greater_than_equal`, `["body","dry_run"]|bool_type`, `["body","client","phone"]|string_type`, `["body","clients"]|list_type`,
			}},
			{"float for int", "", `{"name": "a", "client": {}, "priority": 1.5}`, []string{`["body","priority"]|int_parsing`}},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := do(t, s, "POST", "/api/v2/public/test/echo"+test.query, key, test.body)
				if res.status != 422 {
					t.Fatalf("status = %d %s", res.status, res.raw)
				}
				items, _ := res.body["detail"].([]any)
				var got []string
				for _, it := range items {
					m := it.(map[string]any)
					loc, _ := json.Marshal(m["loc"])
					got = append(got, string(loc)+"|"+m["type"].(string))
					if m["msg"] == "" {
						t.Errorf("item without msg: %v", m)
					}
				}
				if strings.Join(got, " ") != strings.Join(test.want, " ") {
					t.Errorf("items:\n got %v\nwant %v", got, test.want)
				}
			})
		}
	})
}

func TestAdminApplyWorkspace(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		s := newFoundationServer(t, store)
		file := `{"account": {"slug": "beta", "name": "Beta"}, "api_keys": [{"key": "k", "value": "pk_test_beta_key1"}]}`
		if res := do(t, s, "PUT", "/api/v2/admin/workspaces/beta", "", file); res.status != 401 || strings.TrimSpace(res.raw) != `{"detail":"Unauthorized"}` {
			t.Fatalf("no token: %d %s", res.status, res.raw)
		}
		if res := do(t, s, "PUT", "/api/v2/admin/workspaces/beta", "wrong", file); res.status != 401 {
			t.Fatalf("wrong token: %d", res.status)
		}
		assertEnvelope(t, do(t, s, "PUT", "/api/v2/admin/workspaces/other", "admin-secret", file), 400, "VALIDATION_ERROR")
		res := do(t, s, "PUT", "/api/v2/admin/workspaces/beta", "admin-secret", file)
		if res.status != 200 || res.body["api_keys"].(map[string]any)["k"] != "pk_test_beta_key1" {
			t.Fatalf("apply: %d %s", res.status, res.raw)
		}
		// The new account's key works; the old account's objects stay apart.
		if res := do(t, s, "GET", "/api/v2/public/nope", "pk_test_beta_key1", ""); res.status != 404 {
			t.Errorf("beta key: %d", res.status)
		}
	})
}
