package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const (
	acmeKey  = "pk_test_acme_main"
	otherKey = "pk_test_other_main"
	// adminToken opens the admin routes of the harness's server.
	adminToken = "dashboard-harness-admin-token-0123456789"
)

// testNow is a Monday, as in the API tests.
var testNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	// Hashing is the slow part of applying fixtures; the cost does not
	// change what is tested.
	password.Cost = bcrypt.MinCost
	os.Exit(m.Run())
}

// harness is the real server (public API with the dashboard mounted) on a
// real store and a real listener, provisioned from workspace files.
type harness struct {
	t     *testing.T
	store *db.DB
	clock *clock.Fake
	srv   *httptest.Server
	ids   map[string]workspace.IDs
}

func newHarness(t *testing.T, store *db.DB) *harness {
	t.Helper()
	return newHarnessWith(t, store, nil)
}

// newHarnessWith is newHarness with the dashboard's configuration adjusted
// by configure (when not nil).
func newHarnessWith(t *testing.T, store *db.DB, configure func(*dashboard.Config)) *harness {
	t.Helper()
	h := &harness{t: t, store: store, clock: clock.NewFake(testNow), ids: map[string]workspace.IDs{}}
	for _, f := range []string{"../workspace/testdata/acme.yaml", "../httpapi/testdata/other.yaml", "testdata/users.yaml", "testdata/other_users.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&workspace.Applier{DB: store, Now: h.clock.Now, HashPassword: password.Hash, Targets: outbound.Policy{AllowPrivate: true}}).Apply(context.Background(), data)
		if err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
		h.merge(res)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := dashboard.Config{DB: store, Clock: h.clock, Log: log, Targets: outbound.Policy{AllowPrivate: true}}
	if configure != nil {
		configure(&cfg)
	}
	dash, err := dashboard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = httptest.NewServer(httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Log: log, Dashboard: dash, AdminToken: adminToken}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *harness) merge(res *workspace.Result) {
	prev, ok := h.ids[res.Account.Slug]
	if !ok {
		h.ids[res.Account.Slug] = res.IDs
		return
	}
	for _, p := range []struct{ d, s map[string]int64 }{
		{prev.Services, res.IDs.Services}, {prev.Professionals, res.IDs.Professionals}, {prev.EventTypes, res.IDs.EventTypes},
		{prev.Users, res.IDs.Users}, {prev.Waitlists, res.IDs.Waitlists}, {prev.Pipelines, res.IDs.Pipelines},
		{prev.Stages, res.IDs.Stages}, {prev.Clients, res.IDs.Clients}, {prev.Conversations, res.IDs.Conversations},
	} {
		for k, v := range p.s {
			p.d[k] = v
		}
	}
	for k, v := range res.IDs.Channels {
		prev.Channels[k] = v
	}
}

func (h *harness) acme() workspace.IDs  { return h.ids["acme"] }
func (h *harness) other() workspace.IDs { return h.ids["other"] }

// count returns the number of rows of table matching where.
func (h *harness) count(table, where string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.store.QueryRow(context.Background(), "SELECT COUNT(*) FROM "+table+" WHERE "+where, args...).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// api calls the public API with a key and decodes the JSON answer.
func (h *harness) api(method, path, key string, body any) (int, map[string]any) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.srv.URL+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// stageCounts reads the API's stages endpoint: client_count by stage id.
func (h *harness) stageCounts(pipelineID int64) map[int64]int {
	h.t.Helper()
	status, body := h.api("GET", "/api/v2/public/leadflow/pipelines/"+itoa(pipelineID)+"/stages", acmeKey, nil)
	if status != 200 {
		h.t.Fatalf("stages: %d %v", status, body)
	}
	out := map[int64]int{}
	for _, s := range body["data"].([]any) {
		m := s.(map[string]any)
		out[int64(m["id"].(float64))] = int(m["client_count"].(float64))
	}
	return out
}

// user is a browser: a cookie jar that does not follow redirects, so tests
// see every 303.
type user struct {
	h      *harness
	client *http.Client
	csrf   string
	last   string // the last page got, sent as Referer like a browser
}

func (h *harness) newUser() *user {
	jar, _ := cookiejar.New(nil)
	return &user{h: h, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is a response of the dashboard.
type page struct {
	Status   int
	Body     string
	Location string
	Header   http.Header
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func (u *user) do(req *http.Request) page {
	u.h.t.Helper()
	if req.Header.Get("Accept-Language") == "" {
		req.Header.Set("Accept-Language", "en") // the tests read English; Spanish has its own
	}
	res, err := u.client.Do(req)
	if err != nil {
		u.h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	p := page{Status: res.StatusCode, Body: string(b), Location: res.Header.Get("Location"), Header: res.Header}
	if m := csrfField.FindStringSubmatch(p.Body); m != nil {
		u.csrf = m[1]
	}
	return p
}

func (u *user) get(path string) page {
	u.h.t.Helper()
	req, _ := http.NewRequest("GET", u.h.srv.URL+path, nil)
	u.last = u.h.srv.URL + path
	return u.do(req)
}

// post sends a form with the user's CSRF token (unless form sets one).
func (u *user) post(path string, form url.Values) page {
	u.h.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf_token"]; !ok {
		form.Set("csrf_token", u.csrf)
	}
	req, _ := http.NewRequest("POST", u.h.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if u.last != "" {
		req.Header.Set("Referer", u.last)
	}
	return u.do(req)
}

// follow GETs a redirect's target.
func (u *user) follow(p page) page {
	u.h.t.Helper()
	if p.Status != http.StatusSeeOther {
		u.h.t.Fatalf("status = %d, want 303; body: %.400s", p.Status, p.Body)
	}
	return u.get(p.Location)
}

func (u *user) signIn(email, pw, ws string) page {
	u.h.t.Helper()
	u.get("/app/login")
	return u.post("/app/login", url.Values{"email": {email}, "password": {pw}, "workspace": {ws}})
}

// signedIn returns a user signed in to acme as Ana.
func (h *harness) signedIn(email, pw string) *user {
	h.t.Helper()
	u := h.newUser()
	if p := u.signIn(email, pw, ""); p.Status != http.StatusSeeOther || p.Location != "/app/" {
		h.t.Fatalf("sign in: %d %s %.300s", p.Status, p.Location, p.Body)
	}
	u.get("/app/keys") // picks up the session's CSRF token
	return u
}

func (p page) must(t *testing.T, status int) page {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status = %d, want %d; location %q; body: %.600s", p.Status, status, p.Location, p.Body)
	}
	return p
}

func (p page) contains(t *testing.T, texts ...string) page {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(p.Body, s) {
			t.Fatalf("page does not contain %q; body: %.2000s", s, p.Body)
		}
	}
	return p
}

func itoa(n int64) string { return strconvI(n) }

func strconvI(n int64) string { return strconv.FormatInt(n, 10) }
