package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Finding 5 (dashboard): NUL bytes and invalid UTF-8 in any form or query
// value, an oversized search, an overflowing page number and an oversized
// id list each get a clear 4xx, never a 500 and never the database.
func TestBadInputIsRefused(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)

		t.Run("signed out sign-in form", func(t *testing.T) {
			for _, form := range []url.Values{
				{"email": {"ana\x00@acme.test"}, "password": {"ana-password"}},
				{"email": {"ana@acme.test"}, "password": {"ana-password"}, "workspace": {"ac\x00me"}},
				{"email": {"\xffana@acme.test"}, "password": {"ana-password"}},
				{"email": {"ana@acme.test"}, "password": {"ana-password"}, "next": {"/app/\xc3"}},
			} {
				u := h.newUser()
				u.get("/app/login")
				u.post("/app/login", form).must(t, http.StatusBadRequest).contains(t, "characters that are not allowed")
			}
			h.newUser().get("/app/login?next=%00").must(t, http.StatusBadRequest)
		})

		u := h.signedIn("ana@acme.test", "ana-password")
		pedro := "/app/clients/" + itoa(h.acme().Clients["pedro"])
		board := "/app/pipelines/" + itoa(h.acme().Pipelines["sales"])

		t.Run("signed in forms", func(t *testing.T) {
			for _, tc := range []struct {
				path string
				form url.Values
			}{
				{pedro, url.Values{"first_name": {"Pe\x00dro"}, "last_name": {"Sánchez"}}},
				{pedro, url.Values{"first_name": {"Pedro"}, "last_name": {"S\xe1nchez"}}},
				{pedro + "/tags", url.Values{"name": {"v\x00ip"}}},
				{"/app/keys", url.Values{"name": {"k\x00"}}},
				{"/app/keys/revoke", url.Values{"name": {"\xfe\xff"}}},
				{board + "/nodes", url.Values{"name": {"ok"}, "strategy\x00": {"none"}}},
			} {
				u.post(tc.path, tc.form).must(t, http.StatusBadRequest).contains(t, "characters that are not allowed")
			}
			if n := h.count("clients", "first_name = 'Pedro'"); n != 1 {
				t.Fatalf("a refused form wrote: %d", n)
			}
		})

		t.Run("query strings", func(t *testing.T) {
			for _, path := range []string{"/app/clients?q=%00", "/app/clients?q=%FF", "/app/conversations?search=a%00b",
				"/app/calendar?date=%C0", "/app/activity?kind=%00", "/app/waitlists?status=%ff"} {
				u.get(path).must(t, http.StatusBadRequest).contains(t, "characters that are not allowed")
			}
		})

		t.Run("long searches", func(t *testing.T) {
			long := strings.Repeat("a%", 50000)
			for _, path := range []string{"/app/clients?q=", "/app/conversations?search="} {
				u.get(path+url.QueryEscape(long)).must(t, http.StatusBadRequest).contains(t, "at most 200 characters")
			}
			// 200 characters is still a search.
			u.get("/app/clients?q="+strings.Repeat("é", 200)).must(t, http.StatusOK).contains(t, "No client matches")
		})

		// The client search cuts words at punctuation (docs/patient-search.md),
		// so a wildcard can only reach SQL inside an e-mail word.
		t.Run("LIKE wildcards match literally", func(t *testing.T) {
			for _, q := range []string{"%", "_", `\`, "%%", "m_ria@example.com", "mar%a@example"} {
				u.get("/app/clients?q="+url.QueryEscape(q)).must(t, http.StatusOK).contains(t, "No client matches")
				u.get("/app/conversations?search="+url.QueryEscape(q)).must(t, http.StatusOK)
			}
		})

		t.Run("page numbers", func(t *testing.T) {
			for _, page := range []string{"9223372036854775807", "99999999999999999999", "100001", "-1", "x"} {
				u.get("/app/conversations?page="+page).must(t, http.StatusBadRequest).contains(t, "page")
			}
			u.get("/app/conversations?page=2").must(t, http.StatusOK)
		})

		t.Run("id lists and numbers", func(t *testing.T) {
			form := url.Values{"name": {"Big pool"}, "target_stage_id": {itoa(h.acme().Stages["sales/new"])}, "strategy": {"round_robin"}}
			// 5,000 ids: Go's form parser refuses more than 10,000 fields
			// on its own (a 400 "could not be read").
			for i := 0; i < 5000; i++ {
				form.Add("pool", itoa(int64(i+1)))
			}
			u.follow(u.post(board+"/nodes", form).must(t, http.StatusSeeOther)).contains(t, "at most 100 team members")
			for _, v := range []string{"NaN", "Inf", "-Inf", "1e400"} {
				u.follow(u.post(board+"/nodes", url.Values{"name": {"N"}, "target_stage_id": {itoa(h.acme().Stages["sales/new"])},
					"default_lead_value": {v}})).contains(t, "lead value must be a number")
				u.follow(u.post(pedro, url.Values{"first_name": {"Pedro"}, "last_name": {"Sánchez"}, "lead_value": {v}})).
					contains(t, "lead value must be a number")
			}
			if n := h.count("input_nodes", "name IN ('Big pool', 'N')"); n != 0 {
				t.Fatalf("refused nodes written: %d", n)
			}
			u.get("/app/calendar?professional=99999999999999999999999").must(t, http.StatusOK)
		})
	})
}

// Finding 7: a form's back field (and the Referer) may only send the
// browser to a dashboard path of this host.
func TestBackCannotRedirectOffSite(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		// A refused form (an API node without a name) goes back.
		settings := "/app/pipelines/" + itoa(h.acme().Pipelines["sales"]) + "/nodes"
		for _, back := range []string{`/app/../\evil.example`, `/app/..\/evil.example`, `//evil.example/app/`, `/app/../../evil.example`,
			`/\evil.example`, "/app/\t/evil", `https://evil.example/app/`, `/app/%2e%2e/%5cevil.example`, `/app/..%2f..%2f%5cevil.example`} {
			u.last = "" // no Referer: the fallback is the dashboard's home
			p := u.post(settings, url.Values{"name": {""}, "back": {back}}).must(t, http.StatusSeeOther)
			if p.Location != "/app/" {
				t.Errorf("back %q -> Location %q, want /app/", back, p.Location)
			}
		}
		u.last = ""
		p := u.post(settings, url.Values{"name": {""}, "back": {"/app/waitlists?status=all"}}).must(t, http.StatusSeeOther)
		if p.Location != "/app/waitlists?status=all" {
			t.Errorf("a good back is kept: %q", p.Location)
		}
	})
}

// Finding 5 (headers): every dashboard response, signed in or not, page,
// error or redirect, carries the security headers, and the policy allows
// only the dashboard's own script.
func TestSecurityHeaders(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		anon := h.newUser()
		u := h.signedIn("ana@acme.test", "ana-password")
		for _, p := range []page{anon.get("/app/login"), anon.get("/app/keys"), anon.get("/app/nowhere"),
			u.get("/app/keys"), u.get("/app/clients/999999"), u.get("/app/clients?q=%00"), u.post("/app/keys", url.Values{"csrf_token": {"x"}})} {
			for name, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"X-Frame-Options":        "DENY",
				"Referrer-Policy":        "same-origin",
				"Cache-Control":          "no-store",
			} {
				if got := p.Header.Get(name); got != want {
					t.Errorf("status %d: %s = %q, want %q", p.Status, name, got, want)
				}
			}
			csp := p.Header.Get("Content-Security-Policy")
			for _, d := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'",
				"frame-ancestors 'none'", "form-action 'self'"} {
				if !strings.Contains(csp, d) {
					t.Errorf("status %d: CSP %q lacks %q", p.Status, csp, d)
				}
			}
			if strings.Contains(csp, "script-src 'self' 'unsafe") {
				t.Errorf("CSP allows inline script: %q", csp)
			}
		}
		if p := anon.get("/app/static/app.js"); p.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("static: %v", p.Header)
		}
	})
}
