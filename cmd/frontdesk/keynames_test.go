package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestOneKeyNameRule drives the same key names through every door that
// creates an API key (the CLI's keys create, the dashboard's keys page, a
// workspace file) and wants the same accept or refuse from each: the rule is
// account.KeyName, and a live name is unique (account.InsertKey).
func TestOneKeyNameRule(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			for _, f := range []string{"../../internal/workspace/testdata/acme.yaml", "../../internal/dashboard/testdata/users.yaml"} {
				if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", f); code != 0 {
					t.Fatal(stderr)
				}
			}
			env := &Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Clock: clock.System{}}
			addr, stop := serveInProcess(t, env, "--db", dsn)
			defer stop()
			dash := signInDashboard(t, "http://"+addr, "ana@acme.test", "ana-password")

			doors := map[string]func(name string) bool{
				"cli": func(name string) bool {
					code, _, _ := runCmd(t, dsn, "", "keys", "create", "--account", "acme", "--name", name)
					return code == 0
				},
				"dashboard": func(name string) bool {
					return dash.post("/app/keys", url.Values{"name": {name}}) == http.StatusOK
				},
				"workspace file": func(name string) bool {
					n, _ := json.Marshal(name)
					file := fmt.Sprintf("account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}\n"+
						"api_keys: [{key: k%x, name: %s}]\n", len(name)*1000+int(name[len(name)-1]), n)
					code, _, _ := runCmd(t, dsn, file, "workspace", "apply", "-f", "-")
					return code == 0
				},
			}
			var stored []string // the names accepted doors should have stored
			for _, test := range []struct {
				name   func(door string) string // each door its own name, unless it is taken
				stored func(door string) string
				ok     bool
			}{
				{name: func(d string) string { return "zapier " + d }, ok: true},
				{name: func(d string) string { return "  padded " + d + "  " }, stored: func(d string) string { return "padded " + d }, ok: true},
				{name: func(d string) string { return strings.Repeat("k", 100-len(d)) + d }, ok: true},
				{name: func(d string) string { return strings.Repeat("ñ", 100-len(d)) + d }, ok: true}, // characters, not bytes
				{name: func(d string) string { return strings.Repeat("k", 101-len(d)) + d }, ok: false},
				{name: func(string) string { return "main" }, ok: false}, // acme.yaml's live key
			} {
				for door, create := range doors {
					name := test.name(door)
					if got := create(name); got != test.ok {
						t.Errorf("%s: key name %q accepted = %v, want %v", door, name, got, test.ok)
					}
					if test.ok {
						s := strings.TrimSpace(name)
						if test.stored != nil {
							s = test.stored(door)
						}
						stored = append(stored, s)
					}
				}
			}
			_, out, _ := runCmd(t, dsn, "", "keys", "list", "--account", "acme", "--json")
			var keys []struct{ Name string }
			json.Unmarshal([]byte(out), &keys)
			names := map[string]int{}
			for _, k := range keys {
				names[k.Name]++
			}
			for _, s := range append(stored, "main") {
				if names[s] != 1 {
					t.Errorf("%d keys named %q, want 1", names[s], s)
				}
			}
		})
	}
}

// dashboardUser is a browser signed in to the dashboard: a cookie jar and
// the last CSRF token seen.
type dashboardUser struct {
	t      *testing.T
	base   string
	client *http.Client
	csrf   string
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func signInDashboard(t *testing.T, base, email, password string) *dashboardUser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u := &dashboardUser{t: t, base: base, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	u.get("/app/login")
	if s := u.post("/app/login", url.Values{"email": {email}, "password": {password}}); s != http.StatusSeeOther {
		t.Fatalf("sign in: %d", s)
	}
	u.get("/app/keys")
	return u
}

func (u *dashboardUser) get(path string) int {
	req, _ := http.NewRequest("GET", u.base+path, nil)
	return u.do(req)
}

func (u *dashboardUser) post(path string, form url.Values) int {
	form.Set("csrf_token", u.csrf)
	req, _ := http.NewRequest("POST", u.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", u.base+path)
	return u.do(req)
}

func (u *dashboardUser) do(req *http.Request) int {
	u.t.Helper()
	res, err := u.client.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := csrfField.FindSubmatch(b); m != nil {
		u.csrf = string(m[1])
	}
	return res.StatusCode
}
