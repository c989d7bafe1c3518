package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/logtest"
	"github.com/frontdesk/frontdesk/internal/reqid"
)

// Bad input is a clear 4xx, never a 500, a silently
// ignored parameter, or a silently altered value.

// problemAt reports whether a 422 lists an item of type typ at loc.
func problemAt(r response, typ string, loc ...any) bool {
	for _, it := range r.list("detail") {
		p, _ := it.(map[string]any)
		l, _ := p["loc"].([]any)
		if p["type"] == typ && slices.Equal(l, loc) {
			return true
		}
	}
	return false
}

func idList(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(ids, ",")
}

// On SQLite 40,000 ids were 40,000 bound variables: "too many SQL
// variables", a 500. At most MaxQueryIDs distinct ids are accepted.
func TestQueryIDListsAreBounded(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		won := h.acme().DispositionTags["won"]
		for _, test := range []struct {
			name, path, param string
			ok                bool
		}{
			{"40000 tags", "/chat/conversations?disposition_tag_ids=" + idList(40000), "disposition_tag_ids", false},
			{"40000 repeated tags", "/chat/conversations?disposition_tag_ids=" + idList(40000) + "&disposition_tag_ids=1", "disposition_tag_ids", false},
			{"501 tags", "/chat/conversations?disposition_tag_ids=" + idList(501), "disposition_tag_ids", false},
			{"500 tags", "/chat/conversations?disposition_tag_ids=" + idList(499) + "," + strconv.FormatInt(won, 10), "", true},
			{"one tag 40000 times", "/chat/conversations?disposition_tag_ids=" + strings.Repeat(strconv.FormatInt(won, 10)+",", 40000), "", true},
			{"40000 services", "/calendar/availability?service_id=" + idList(40000), "service_id", false},
		} {
			t.Run(test.name, func(t *testing.T) {
				r := h.do("GET", isoPub+test.path, acmeKey, nil)
				if test.ok {
					r.must(t, 200)
					if test.param == "" && strings.HasPrefix(test.path, "/chat/") && r.num("count") != 1 {
						t.Errorf("count = %v, want 1 (acme's one conversation tagged won): %s", r.get("count"), r.Raw)
					}
					return
				}
				r.must(t, 422)
				if !problemAt(r, "too_long", "query", test.param) {
					t.Errorf("want too_long at [query %s]: %s", test.param, r.Raw)
				}
			})
		}
	})
}

// Every query integer that reaches SQL is bounded: the largest offset
// accepted works on both engines, one more (or the int64 maximum) is a 422
// naming the parameter, and the dashboard's page parameter is not one of
// the public API's (unknown parameters are ignored).
func TestQueryIntegersAreBounded(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ids := h.acme()
		paged := []string{
			"/calendar/waitlist/entries",
			"/leadflow/pipelines",
			fmt.Sprintf("/leadflow/pipelines/%d/clients", ids.Pipelines["sales"]),
			"/chat/conversations",
			fmt.Sprintf("/chat/conversations/%d/messages", ids.Conversations["c1"]),
		}
		for _, p := range paged {
			h.do("GET", isoPub+p+"?offset=2147483647&limit=1", acmeKey, nil).must(t, 200)
			h.do("GET", isoPub+p+"?page=9223372036854775807", acmeKey, nil).must(t, 200)
			for _, off := range []string{"2147483648", "9223372036854775807", "99999999999999999999"} {
				r := h.do("GET", isoPub+p+"?offset="+off, acmeKey, nil).must(t, 422)
				if !problemAt(r, "less_than_equal", "query", "offset") && !problemAt(r, "int_parsing", "query", "offset") {
					t.Errorf("%s offset=%s: want a 422 at [query offset]: %s", p, off, r.Raw)
				}
			}
		}
		for _, q := range []string{
			"/chat/conversations?client_id=9223372036854775807",
			"/chat/conversations?max_messages_per_session=9223372036854775807",
			"/calendar/waitlist/entries?client_id=9223372036854775807",
			"/calendar/waitlist/entries?priority=9223372036854775807",
			"/calendar/availability?days=9223372036854775807",
			fmt.Sprintf("/leadflow/pipelines/%d/clients?stage_id=9223372036854775807", ids.Pipelines["sales"]),
		} {
			h.do("GET", isoPub+q, acmeKey, nil).must(t, 422)
		}
	})
}

// Go's url.ParseQuery stops at a ';' or a bad escape and r.URL.Query()
// silently drops what it could not parse: the caller got an unfiltered page.
func TestMalformedQueryStringIs422(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ids := h.acme()
		for _, test := range []struct{ method, path string }{
			{"GET", "/chat/conversations?status=resolved;include_messages=false"},
			{"GET", "/chat/conversations?search=%zz"},
			{"GET", "/chat/conversations?search=ma%"},
			{"GET", "/calendar/waitlist/entries?status=resolved;x"},
			{"GET", "/calendar/services?a;b"},
			{"GET", "/calendar/waitlist/summary?%"},
			{"GET", "/calendar/availability?days=1;"},
			{"GET", "/leadflow/pipelines?status=archived%2"},
			{"GET", fmt.Sprintf("/leadflow/pipelines/%d/stages?x=%%", ids.Pipelines["sales"])},
			{"POST", "/calendar/waitlist/entries?dry_run=1;"},
		} {
			t.Run(test.method+" "+test.path, func(t *testing.T) {
				r := h.do(test.method, isoPub+test.path, acmeKey, map[string]any{"phone": "+34611007001"}).must(t, 422)
				items := r.list("detail")
				if len(items) != 1 || !problemAt(r, "value_error", "query") {
					t.Errorf("want one value_error at [query]: %s", r.Raw)
				}
			})
		}
		// The order of checks holds: authentication, then routing, then schema.
		h.do("GET", isoPub+"/chat/conversations?a;b", "", nil).must(t, 401)
		h.do("GET", isoPub+"/no/such/path?a;b", acmeKey, nil).must(t, 404)
		// A well-formed query still works, and '%3B' is a ';' inside a value.
		h.do("GET", isoPub+"/chat/conversations?search=a%3Bb&status=resolved", acmeKey, nil).must(t, 200)
		// The document needs no key and takes no parameters.
		h.do("GET", isoPub+"/openapi.json?a;b", "", nil).must(t, 200)
	})
}

// encoding/json replaces invalid UTF-8 with U+FFFD: the value was stored
// altered. The body is not JSON (RFC 8259, section 8.1): 422 json_invalid.
func TestInvalidUTF8BodyIs422(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ids := h.acme()
		bad := []byte("{\"phone\": \"+34611007002\", \"first_name\": \"Ma\xffria\", \"service_ids\": [" + strconv.FormatInt(ids.Services["cleaning"], 10) + "]}")
		for _, test := range []struct {
			method, path, key string
			body              []byte
		}{
			{"POST", isoPub + "/calendar/waitlist/entries", acmeKey, bad},
			{"POST", isoPub + "/calendar/waitlist/entries", acmeKey, []byte("{\"phone\": \"+34611007002\", \"service_ids\": [1]}\xff")},
			{"POST", isoPub + "/calendar/waitlist/entries", acmeKey, []byte("\xef\xbb\xbf{\"phone\": \"+34611007002\"}\xc0\x80")},
			{"POST", fmt.Sprintf("/api/v2/admin/workspaces/acme/conversations/%d/messages", ids.Conversations["c1"]), "admin-secret",
				[]byte("{\"from\": \"customer\", \"content\": \"hola \xed\xa0\x80\"}")},
			{"PATCH", fmt.Sprintf("/api/v2/admin/workspaces/acme/conversations/%d", ids.Conversations["c1"]), "admin-secret",
				[]byte("{\"summary\": \"\xfe\"}")},
		} {
			r := h.do(test.method, test.path, test.key, test.body).must(t, 422)
			if len(r.list("detail")) != 1 || !problemAt(r, "json_invalid", "body") {
				t.Errorf("%s %s: want one json_invalid at [body]: %s", test.method, test.path, r.Raw)
			}
		}
		// The workspace file (YAML or JSON) keeps its own envelope: 400
		// VALIDATION_ERROR, and nothing changes.
		r := h.do("PUT", "/api/v2/admin/workspaces/acme", "admin-secret", []byte("{\"account\": {\"slug\": \"acme\", \"name\": \"Acme \xff\"}}")).must(t, 400)
		if r.errorCode() != "VALIDATION_ERROR" || h.count("accounts", "slug = 'acme' AND name = 'Acme Clinic'") != 1 {
			t.Errorf("workspace file with invalid UTF-8: %s", r.Raw)
		}
		if n := h.count("clients", "phone_national = ?", "611007002"); n != 0 {
			t.Errorf("%d clients written from an invalid body", n)
		}
		// Valid UTF-8, escapes included, still goes through.
		h.do("POST", isoPub+"/calendar/waitlist/entries", acmeKey,
			"{\"phone\": \"+34611007002\", \"first_name\": \"Mar\u00eda \\u00e9\", \"service_ids\": ["+strconv.FormatInt(ids.Services["cleaning"], 10)+"]}").must(t, 200)
	})
}

// observedServer is a server on h's store whose log and metrics the test
// reads.
func observedServer(t *testing.T, h *harness, cfg httpapi.Config) (*httpapi.Server, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	cfg.DB, cfg.Clock = h.store, h.clock
	cfg.Log = slog.New(slog.NewTextHandler(logs, nil))
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	return httpapi.NewServer(cfg), logs
}

// scrape returns the /metrics text of srv.
func scrape(t *testing.T, srv http.Handler, token string) string {
	t.Helper()
	req := httptest.NewRequest("GET", "/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("/metrics -> %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// A client that sends part of its body and hangs up was logged as an
// internal error and counted as a 500. It is a client disconnect: 499 in the
// access log and the metrics, no error logged, no 5xx counted.
func TestClientDisconnectIs499(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		srv, logs := observedServer(t, h, httpapi.Config{})
		ts := httptest.NewServer(srv)
		defer ts.Close()

		for _, chunked := range []bool{false, true} {
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			head := "POST " + isoPub + "/calendar/waitlist/entries HTTP/1.1\r\nHost: frontdesk\r\nAuthorization: Bearer " + acmeKey +
				"\r\nContent-Type: application/json\r\n"
			if chunked {
				fmt.Fprintf(conn, "%sTransfer-Encoding: chunked\r\n\r\n10\r\n{\"phone\": \"+346\r\n", head)
			} else {
				fmt.Fprintf(conn, "%sContent-Length: 1000\r\n\r\n{\"phone\": \"+34611", head)
			}
			time.Sleep(50 * time.Millisecond) // the handler is reading the body
			conn.Close()
		}
		// A client gone before the handler queries: the context is cancelled.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequest("GET", isoPub+"/calendar/services", nil).WithContext(ctx)
		req.Header.Set("Authorization", "Bearer "+acmeKey)
		func() {
			defer func() { recover() }() // the server may abort the response (http.ErrAbortHandler)
			srv.ServeHTTP(httptest.NewRecorder(), req)
		}()

		deadline := time.Now().Add(5 * time.Second)
		for strings.Count(logs.String(), "status=499") < 3 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		out := logs.String()
		if n := strings.Count(out, "status=499"); n != 3 {
			t.Errorf("access log has %d lines with status=499, want 3:\n%s", n, out)
		}
		if strings.Contains(out, "level=ERROR") || strings.Contains(out, "status=500") {
			t.Errorf("a client disconnect was logged as an error:\n%s", out)
		}
		if !strings.Contains(out, "client disconnected") {
			t.Errorf("no 'client disconnected' line:\n%s", out)
		}
		metrics := scrape(t, srv, "")
		if !strings.Contains(metrics, `frontdesk_http_requests_total{method="POST",route="POST /api/v2/public/calendar/waitlist/entries",status="499"} 2`) {
			t.Errorf("metrics lack the two POST 499s:\n%s", grepLines(metrics, "frontdesk_http_requests_total"))
		}
		if strings.Contains(metrics, `status="500"`) {
			t.Errorf("a disconnect was counted as a 500:\n%s", grepLines(metrics, "frontdesk_http_requests_total"))
		}
	})
}

func grepLines(s, sub string) string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.Contains(sc.Text(), sub) {
			out = append(out, sc.Text())
		}
	}
	return strings.Join(out, "\n")
}

// Every response carries nosniff and no-referrer; the HTML page also
// refuses framing and loads nothing from elsewhere.
func TestSecurityHeaders(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		for _, test := range []struct {
			method, path, key string
			status            int
			html              bool
		}{
			{"GET", isoPub + "/calendar/services", acmeKey, 200, false},
			{"GET", isoPub + "/calendar/services", "", 401, false},
			{"GET", isoPub + "/no/such/path", acmeKey, 404, false},
			{"POST", isoPub + "/calendar/waitlist/entries", acmeKey, 422, false},
			{"GET", isoPub + "/openapi.json", "", 200, false},
			{"GET", "/healthz", "", 200, false},
			{"GET", "/metrics", "", 200, false},
			{"GET", "/docs", "", 200, true},
		} {
			r := h.do(test.method, test.path, test.key, nil).must(t, test.status)
			what := test.method + " " + test.path
			if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("%s: X-Content-Type-Options = %q", what, got)
			}
			if got := r.Header.Get("Referrer-Policy"); got != "no-referrer" {
				t.Errorf("%s: Referrer-Policy = %q", what, got)
			}
			if !test.html {
				continue
			}
			if got := r.Header.Get("X-Frame-Options"); got != "DENY" {
				t.Errorf("%s: X-Frame-Options = %q", what, got)
			}
			csp := r.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("%s: Content-Security-Policy %q lacks %q", what, csp, want)
				}
			}
		}
	})
}

// The dashboard keeps its own Referrer-Policy: it returns to the referring
// page after an action, so no-referrer would break it.
func TestDashboardKeepsItsReferrerPolicy(t *testing.T) {
	h := newHarness(t, dbtest.Open(t, db.SQLite))
	dash := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<p>dashboard</p>")) })
	srv, _ := observedServer(t, h, httpapi.Config{Dashboard: dash})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/app/clients", nil))
	if rec.Code != 200 || rec.Header().Get("Referrer-Policy") != "" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("/app/ -> %d, Referrer-Policy %q, X-Content-Type-Options %q", rec.Code, rec.Header().Get("Referrer-Policy"), rec.Header().Get("X-Content-Type-Options"))
	}
}

// With a metrics token, /metrics needs it as a bearer; without one it stays
// open as before.
func TestMetricsToken(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		srv, _ := observedServer(t, h, httpapi.Config{MetricsToken: "metrics-secret-token"})
		for _, test := range []struct {
			auth   string
			status int
		}{
			{"", 401},
			{"Bearer", 401},
			{"Bearer wrong", 401},
			{"Bearer metrics-secret-tokenX", 401},
			{"Basic bWV0cmljcy1zZWNyZXQtdG9rZW4=", 401},
			{"Bearer " + acmeKey, 401},
			{"Bearer metrics-secret-token", 200},
			{"bearer metrics-secret-token", 200},
		} {
			req := httptest.NewRequest("GET", "/metrics", nil)
			if test.auth != "" {
				req.Header.Set("Authorization", test.auth)
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != test.status {
				t.Errorf("Authorization %q -> %d, want %d", test.auth, rec.Code, test.status)
			}
			if test.status == 200 && !strings.Contains(rec.Body.String(), "frontdesk_http_requests_total") {
				t.Errorf("Authorization %q: no metrics in the body", test.auth)
			}
			if test.status == 401 && strings.Contains(rec.Body.String(), "frontdesk_") {
				t.Errorf("Authorization %q: 401 leaks metrics", test.auth)
			}
		}
		open, _ := observedServer(t, h, httpapi.Config{})
		scrape(t, open, "")
	})
}

// A handler mounted under the server (the dashboard) finds the request's
// id in its context, the one the response and the access log carry.
func TestMountedHandlersSeeTheRequestID(t *testing.T) {
	h := newHarness(t, dbtest.Open(t, db.SQLite))
	var seen string
	dash := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = reqid.From(r.Context()) })
	srv, logs := observedServer(t, h, httpapi.Config{Dashboard: dash})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/app/clients", nil))
	id := rec.Header().Get("X-Request-Id")
	if id == "" || seen != id || !strings.Contains(logs.String(), "request_id="+id) {
		t.Fatalf("response id %q, handler saw %q, log %s", id, seen, logs.String())
	}
}
