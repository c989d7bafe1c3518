package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func TestSignIn(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		for _, tc := range []struct {
			name, email, pw, ws string
			ok                  bool
			text                string
		}{
			{name: "right password", email: "ana@acme.test", pw: "ana-password", ok: true},
			{name: "e-mail case and spaces ignored", email: "  ANA@acme.test ", pw: "ana-password", ok: true},
			{name: "wrong password", email: "ana@acme.test", pw: "nope-nope", text: "do not match"},
			{name: "unknown e-mail", email: "nobody@acme.test", pw: "ana-password", text: "do not match"},
			{name: "user without a password", email: "luis@acme.test", pw: "", text: "Enter your e-mail and password"},
			{name: "e-mail in two workspaces", email: "shared@example.test", pw: "shared-pass", text: "several workspaces"},
			{name: "e-mail in two workspaces, workspace named", email: "shared@example.test", pw: "shared-pass", ws: "other", ok: true},
			{name: "right password, wrong workspace", email: "ana@acme.test", pw: "ana-password", ws: "other", text: "do not match"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u := h.newUser()
				p := u.signIn(tc.email, tc.pw, tc.ws)
				if !tc.ok {
					p.must(t, http.StatusUnauthorized).contains(t, tc.text)
					u.get("/app/keys").must(t, http.StatusSeeOther)
					return
				}
				p.must(t, http.StatusSeeOther)
				var cookie *http.Cookie
				for _, c := range (&http.Response{Header: p.Header}).Cookies() {
					if c.Name == "frontdesk_session" {
						cookie = c
					}
				}
				if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure || len(cookie.Value) < 40 {
					t.Fatalf("session cookie = %+v", cookie)
				}
				u.get("/app/keys").must(t, http.StatusOK).contains(t, "API keys")
			})
		}

		t.Run("cookie is Secure behind TLS", func(t *testing.T) {
			u := h.newUser()
			u.get("/app/login")
			req, _ := http.NewRequest("POST", h.srv.URL+"/app/login", strings.NewReader(url.Values{
				"email": {"ana@acme.test"}, "password": {"ana-password"}, "csrf_token": {u.csrf}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-Proto", "https")
			p := u.do(req).must(t, http.StatusSeeOther)
			if !strings.Contains(p.Header.Get("Set-Cookie"), "Secure") {
				t.Fatalf("Set-Cookie = %q, want Secure", p.Header.Values("Set-Cookie"))
			}
		})

		t.Run("sign-in form without its token is refused", func(t *testing.T) {
			u := h.newUser()
			u.get("/app/login")
			u.post("/app/login", url.Values{"email": {"ana@acme.test"}, "password": {"ana-password"}, "csrf_token": {""}}).must(t, http.StatusForbidden)
		})

		t.Run("next keeps only dashboard paths", func(t *testing.T) {
			u := h.newUser()
			p := u.get("/app/clients?q=ana").must(t, http.StatusSeeOther)
			if p.Location != "/app/login?next=%2Fapp%2Fclients%3Fq%3Dana" {
				t.Fatalf("location = %q", p.Location)
			}
			u.get(p.Location)
			p = u.post("/app/login", url.Values{"email": {"ana@acme.test"}, "password": {"ana-password"}, "next": {"/app/clients?q=ana"}})
			if p.Location != "/app/clients?q=ana" {
				t.Fatalf("after sign-in: %q", p.Location)
			}
			u2 := h.newUser()
			u2.get("/app/login")
			p = u2.post("/app/login", url.Values{"email": {"ana@acme.test"}, "password": {"ana-password"}, "next": {"//evil.test/app/"}})
			if p.Location != "/app/" {
				t.Fatalf("open redirect: %q", p.Location)
			}
		})

		t.Run("logout deletes the session", func(t *testing.T) {
			u := h.signedIn("ana@acme.test", "ana-password")
			before := h.count("dashboard_sessions", "user_id = ?", h.acme().Users["ana"])
			u.follow(u.post("/app/logout", nil)).must(t, http.StatusOK).contains(t, "signed out")
			if after := h.count("dashboard_sessions", "user_id = ?", h.acme().Users["ana"]); after != before-1 {
				t.Fatalf("sessions %d -> %d", before, after)
			}
			u.get("/app/keys").must(t, http.StatusSeeOther)
		})
	})
}

func TestWithoutSessionRedirectsToSignIn(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.newUser()
		keys := h.count("api_keys", "account_id > 0")
		for _, path := range []string{"/app/", "/app/keys", "/app/pipelines", "/app/pipelines/1", "/app/clients", "/app/clients/1",
			"/app/calendar", "/app/waitlists", "/app/conversations", "/app/conversations/1", "/app/activity"} {
			p := u.get(path).must(t, http.StatusSeeOther)
			if !strings.HasPrefix(p.Location, "/app/login?next=") {
				t.Fatalf("%s -> %q", path, p.Location)
			}
		}
		for _, path := range []string{"/app/keys", "/app/logout", "/app/pipelines/1/move", "/app/clients/1", "/app/waitlists/entries/1/remove",
			"/app/appointments/1/reschedule"} {
			p := u.post(path, url.Values{"csrf_token": {"x"}}).must(t, http.StatusSeeOther)
			if p.Location != "/app/login" {
				t.Fatalf("POST %s -> %q", path, p.Location)
			}
		}
		if n := h.count("api_keys", "account_id > 0"); n != keys {
			t.Fatalf("keys %d -> %d", keys, n)
		}
		// The login page and assets need no session.
		u.get("/app/login").must(t, http.StatusOK).contains(t, `<label for="email">`)
		u.get("/app/static/app.css").must(t, http.StatusOK)
	})
}

func TestCSRF(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		keys := h.count("api_keys", "account_id > 0")
		for _, tc := range []struct {
			name  string
			token []string
		}{{"missing", nil}, {"empty", []string{""}}, {"wrong", []string{"AAAA" + u.csrf[4:]}}} {
			t.Run(tc.name, func(t *testing.T) {
				form := url.Values{"name": {"sneaky"}}
				if tc.token != nil {
					form["csrf_token"] = tc.token
				} else {
					form["csrf_token"] = nil
				}
				req, _ := http.NewRequest("POST", h.srv.URL+"/app/keys", strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				u.do(req).must(t, http.StatusForbidden).contains(t, "did not come from this dashboard")
			})
		}
		// Another session's token is refused too.
		other := h.signedIn("bob@other.test", "bob-password")
		u.post("/app/keys", url.Values{"name": {"sneaky"}, "csrf_token": {other.csrf}}).must(t, http.StatusForbidden)
		if n := h.count("api_keys", "account_id > 0"); n != keys {
			t.Fatalf("keys %d -> %d", keys, n)
		}
		u.post("/app/keys", url.Values{"name": {"fine"}}).must(t, http.StatusOK)
	})
}

func TestSessionExpiry(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		idle := h.signedIn("ana@acme.test", "ana-password")
		h.clock.Set(testNow.Add(11 * time.Hour))
		idle.get("/app/keys").must(t, http.StatusOK) // activity restarts the idle timer
		h.clock.Set(testNow.Add(22 * time.Hour))
		idle.get("/app/keys").must(t, http.StatusOK)
		h.clock.Set(testNow.Add(34*time.Hour + time.Minute))
		idle.get("/app/keys").must(t, http.StatusSeeOther)

		h.clock.Set(testNow)
		busy := h.signedIn("ana@acme.test", "ana-password")
		for at := time.Hour; at < 7*24*time.Hour; at += 10 * time.Hour {
			h.clock.Set(testNow.Add(at))
			busy.get("/app/keys").must(t, http.StatusOK)
		}
		h.clock.Set(testNow.Add(7 * 24 * time.Hour))
		busy.get("/app/keys").must(t, http.StatusSeeOther)
	})
}

// Five wrong passwords for one e-mail from one address within 15 minutes
// stop further attempts, even with the right password, until the window
// moves on; other e-mails are unaffected and a success clears the count.
func TestSignInThrottle(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		attempt := func(email, pw, ws string) page {
			u := h.newUser()
			return u.signIn(email, pw, ws)
		}
		for i := 0; i < 5; i++ {
			attempt("ana@acme.test", "wrong-password", "").must(t, http.StatusUnauthorized).contains(t, "do not match")
		}
		p := attempt("ANA@acme.test", "ana-password", "").must(t, http.StatusTooManyRequests).contains(t, "Too many failed sign-ins")
		if p.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		attempt("shared@example.test", "shared-pass", "other").must(t, http.StatusSeeOther)

		h.clock.Advance(15 * time.Minute)
		attempt("ana@acme.test", "ana-password", "").must(t, http.StatusSeeOther)

		for round := 0; round < 2; round++ {
			for i := 0; i < 4; i++ {
				attempt("ana@acme.test", "wrong-password", "").must(t, http.StatusUnauthorized)
			}
			attempt("ana@acme.test", "ana-password", "").must(t, http.StatusSeeOther)
		}
	})
}
