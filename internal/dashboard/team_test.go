package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// teamRoutes are the settings routes (notifications, channels, webhooks,
// team, audit, and the API keys and channels pages they hold): owners only.
var teamRoutes = []struct{ method, path string }{
	{"GET", "/app/settings"},
	{"GET", "/app/settings/notifications"},
	{"POST", "/app/settings/notifications"},
	{"GET", "/app/settings/webhooks"},
	{"POST", "/app/settings/webhooks"},
	{"GET", "/app/settings/webhooks/1"},
	{"POST", "/app/settings/webhooks/1/active"},
	{"POST", "/app/settings/webhooks/1/delete"},
	{"GET", "/app/settings/team"},
	{"POST", "/app/settings/team/invitations"},
	{"POST", "/app/settings/team/invitations/1/withdraw"},
	{"POST", "/app/settings/team/1/role"},
	{"POST", "/app/settings/team/1/active"},
	{"GET", "/app/settings/audit"},
	{"GET", "/app/settings/channels"},
	{"GET", "/app/keys"},
	{"POST", "/app/keys"},
	{"POST", "/app/keys/revoke"},
}

// TestSettingsStaffRefused: staff get 403 on every settings route and
// change nothing; the nav shows them no Settings entry.
func TestSettingsStaffRefused(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		sara := h.signedIn("sara@acme.test", "sara-password")
		for _, rt := range teamRoutes {
			var p page
			if rt.method == "GET" {
				p = sara.get(rt.path)
			} else {
				p = sara.post(rt.path, url.Values{"url": {"https://x.test"}, "events": {"appointment.booked"}, "email": {"x@y.test"}, "role": {"owner"}})
			}
			if p.Status != http.StatusForbidden {
				t.Errorf("%s %s: status %d, want 403", rt.method, rt.path, p.Status)
			}
		}
		if n := h.count("audit_log", "1 = 1"); n != 0 {
			t.Fatalf("staff wrote %d audit rows", n)
		}
		if n := h.count("invitations", "1 = 1"); n != 0 {
			t.Fatal("staff invited")
		}
		home := sara.get("/app/pipelines").must(t, http.StatusOK)
		if strings.Contains(home.Body, `href="/app/settings"`) || strings.Contains(home.Body, `href="/app/keys"`) {
			t.Fatal("staff see the Settings nav")
		}
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get("/app/pipelines").contains(t, `href="/app/settings"`)
		ana.get("/app/settings").must(t, http.StatusOK).contains(t, "/app/settings/services", "/app/settings/webhooks", "/app/settings/team", "/app/keys", "/app/settings/channels")
	})
}

// TestSettingsWebhooks: an owner adds a webhook (secret shown once, never
// again), it receives a booking's event, its delivery log shows it; pause,
// resume and delete, each audited; refused input writes nothing; another
// account's webhook is a 404.
func TestSettingsWebhooks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get("/app/settings/webhooks").must(t, http.StatusOK).contains(t, "https://example.test/hooks", "appointment.booked")
		before := h.count("webhooks", "1 = 1")

		for _, bad := range []url.Values{
			{"url": {"ftp://x.test"}, "events": {"appointment.booked"}},
			{"url": {"https://crm.test/in"}},
			{"url": {"https://crm.test/in"}, "events": {"nope.event"}},
		} {
			p := ana.post("/app/settings/webhooks", bad)
			if p.Status != http.StatusSeeOther {
				t.Fatalf("bad webhook %v: %d", bad, p.Status)
			}
		}
		if h.count("webhooks", "1 = 1") != before || h.count("audit_log", "1 = 1") != 0 {
			t.Fatal("a refused webhook wrote")
		}

		p := ana.post("/app/settings/webhooks", url.Values{"url": {"https://crm.test/in"}, "events": {"appointment.booked", "appointment.cancelled"}})
		p.must(t, http.StatusOK).contains(t, "Webhook created", "https://crm.test/in")
		secret := regexp.MustCompile(`id="new-secret" readonly value="([^"]+)"`).FindStringSubmatch(p.Body)
		if secret == nil || !strings.HasPrefix(secret[1], "whsec_") {
			t.Fatalf("no secret shown: %.2000s", p.Body)
		}
		var id int64
		var stored, events string
		store.QueryRow(t.Context(), `SELECT id, secret, events FROM webhooks WHERE url = 'https://crm.test/in'`).Scan(&id, &stored, &events)
		if id == 0 || stored != secret[1] || events != `["appointment.booked","appointment.cancelled"]` {
			t.Fatalf("stored %d %q %s", id, stored, events)
		}
		list := ana.get("/app/settings/webhooks").must(t, http.StatusOK)
		detail := ana.get("/app/settings/webhooks/"+itoa(id)).must(t, http.StatusOK).contains(t, "No deliveries yet.")
		for _, pg := range []page{list, detail} {
			if strings.Contains(pg.Body, secret[1]) || strings.Contains(pg.Body, "s3cret") {
				t.Fatal("a page shows a webhook secret")
			}
		}

		a := h.acme()
		status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": a.Services["cleaning"],
			"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
			"start_at": "2026-11-25T10:00:00", "end_at": "2026-11-25T10:30:00", "timezone": "Europe/Madrid"})
		if status != 200 {
			t.Fatalf("book: %d %v", status, body)
		}
		ana.get("/app/settings/webhooks/"+itoa(id)).must(t, http.StatusOK).contains(t, "appointment.booked", "pending")

		ana.follow(ana.post("/app/settings/webhooks/"+itoa(id)+"/active", url.Values{"active": {"false"}})).contains(t, "Webhook paused")
		if h.count("webhooks", "id = ? AND active = ?", id, false) != 1 {
			t.Fatal("not paused")
		}
		ana.follow(ana.post("/app/settings/webhooks/"+itoa(id)+"/active", url.Values{"active": {"true"}})).contains(t, "Webhook resumed.")
		ana.follow(ana.post("/app/settings/webhooks/"+itoa(id)+"/delete", nil)).contains(t, "Webhook deleted.")
		if h.count("webhooks", "id = ?", id) != 0 {
			t.Fatal("not deleted")
		}
		for _, action := range []string{"created", "paused", "resumed", "deleted"} {
			if h.count("audit_log", "object_type = 'webhook' AND object_id = ? AND action = ? AND user_name = 'Ana Ruiz'", itoa(id), action) != 1 {
				t.Fatalf("no audit row for %s", action)
			}
		}
		if h.count("audit_log", "summary LIKE ?", "%"+secret[1]+"%") != 0 {
			t.Fatal("the audit log holds the secret")
		}
		audit := ana.get("/app/settings/audit").must(t, http.StatusOK).contains(t, "https://crm.test/in", "Ana Ruiz", "deleted")
		if strings.Contains(audit.Body, secret[1]) {
			t.Fatal("the audit page shows the secret")
		}

		// Another account's webhook behaves like an unknown one.
		var otherHook int64
		store.QueryRow(t.Context(), `SELECT id FROM webhooks WHERE account_id <> (SELECT account_id FROM webhooks WHERE url = 'https://example.test/hooks') ORDER BY id LIMIT 1`).Scan(&otherHook)
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/settings/webhooks", url.Values{"url": {"https://bob.test/in"}, "events": {"appointment.booked"}}).must(t, http.StatusOK)
		store.QueryRow(t.Context(), `SELECT id FROM webhooks WHERE url = 'https://bob.test/in'`).Scan(&otherHook)
		ana.get("/app/settings/webhooks/"+itoa(otherHook)).must(t, http.StatusNotFound)
		ana.post("/app/settings/webhooks/"+itoa(otherHook)+"/delete", nil).must(t, http.StatusNotFound)
		ana.post("/app/settings/webhooks/"+itoa(otherHook)+"/active", url.Values{"active": {"false"}}).must(t, http.StatusNotFound)
		if h.count("webhooks", "id = ? AND active = ?", otherHook, true) != 1 {
			t.Fatal("another account's webhook changed")
		}
	})
}

var inviteLink = regexp.MustCompile(`id="invite-link" readonly value="[^"]*(/app/invite/[A-Za-z0-9_-]+)"`)

// TestSettingsInvitations: an owner invites; the link works once, signed
// out, and signs the new user in with the role; a reused, expired or
// withdrawn link is refused; only the token's hash is stored; every step
// is audited.
func TestSettingsInvitations(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")

		// Refusals write nothing.
		for _, bad := range []url.Values{
			{"email": {"not-an-email"}, "role": {"staff"}},
			{"email": {"new@acme.test"}, "role": {"boss"}},
			{"email": {"sara@acme.test"}, "role": {"staff"}},
		} {
			ana.post("/app/settings/team/invitations", bad).must(t, http.StatusSeeOther)
		}
		if h.count("invitations", "1 = 1")+h.count("audit_log", "1 = 1") != 0 {
			t.Fatal("a refused invitation wrote")
		}

		invite := func(email, role string) string {
			t.Helper()
			p := ana.post("/app/settings/team/invitations", url.Values{"email": {email}, "name": {"Nina"}, "role": {role}}).must(t, http.StatusOK)
			m := inviteLink.FindStringSubmatch(p.Body)
			if m == nil {
				t.Fatalf("no link: %.2000s", p.Body)
			}
			return m[1]
		}
		link := invite("nina@acme.test", "staff")
		token := strings.TrimPrefix(link, "/app/invite/")
		if h.count("invitations", "token_hash = ?", token) != 0 || h.count("invitations", "email = 'nina@acme.test' AND role = 'staff'") != 1 {
			t.Fatal("the token is stored in plaintext, or no invitation")
		}
		ana.get("/app/settings/team").must(t, http.StatusOK).contains(t, "nina@acme.test")
		if strings.Contains(ana.get("/app/settings/team").Body, token) {
			t.Fatal("the team page shows the link again")
		}

		// Signed out, the link shows the form; a short password is refused.
		nina := h.newUser()
		nina.get(link).must(t, http.StatusOK).contains(t, "nina@acme.test", `value="Nina"`)
		nina.post(link, url.Values{"name": {"Nina Nueva"}, "password": {"short"}}).must(t, http.StatusUnprocessableEntity)
		if h.count("users", "email = 'nina@acme.test'") != 0 {
			t.Fatal("a refused acceptance created the user")
		}
		p := nina.post(link, url.Values{"name": {"Nina Nueva"}, "password": {"nina-password"}}).must(t, http.StatusSeeOther)
		if p.Location != "/app/" {
			t.Fatalf("after accepting: %s", p.Location)
		}
		nina.get("/app/pipelines").must(t, http.StatusOK).contains(t, "Nina Nueva")
		nina.get("/app/settings").must(t, http.StatusForbidden)
		if h.count("users", "email = 'nina@acme.test' AND role = 'staff' AND active = ? AND file_key LIKE 'invited-%'", true) != 1 {
			t.Fatal("the user was not created as staff")
		}
		// Used once: the link is refused now, signed in or not.
		h.newUser().get(link).must(t, http.StatusGone)
		again := h.newUser()
		again.get("/app/login")
		again.post(link, url.Values{"name": {"Eve"}, "password": {"eve-password"}}).must(t, http.StatusForbidden) // no form token
		// The new user signs in with the password they chose.
		if p := h.newUser().signIn("nina@acme.test", "nina-password", ""); p.Status != http.StatusSeeOther {
			t.Fatalf("sign in as the invited user: %d", p.Status)
		}

		// Expired after 7 days.
		late := invite("late@acme.test", "owner")
		h.newUser().get(late).must(t, http.StatusOK)
		h.clock.Advance(7*24*time.Hour + time.Minute)
		h.newUser().get(late).must(t, http.StatusGone)
		ana = h.signedIn("ana@acme.test", "ana-password")

		// Withdrawn.
		gone := invite("gone@acme.test", "staff")
		var invID int64
		store.QueryRow(t.Context(), `SELECT id FROM invitations WHERE email = 'gone@acme.test'`).Scan(&invID)
		ana.follow(ana.post("/app/settings/team/invitations/"+itoa(invID)+"/withdraw", nil)).contains(t, "Invitation withdrawn")
		h.newUser().get(gone).must(t, http.StatusGone)
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/settings/team/invitations/"+itoa(invID)+"/withdraw", nil).must(t, http.StatusNotFound)

		for _, w := range []string{"action = 'invited' AND summary = 'nina@acme.test as staff'", "action = 'accepted' AND user_name = 'Nina Nueva'", "action = 'withdrawn'"} {
			if h.count("audit_log", w) != 1 {
				t.Fatalf("no audit row where %s", w)
			}
		}
		if h.count("audit_log", "summary LIKE ?", "%"+token+"%") != 0 {
			t.Fatal("the audit log holds a token")
		}
	})
}

// TestSettingsTeamRoles: role changes and deactivation, never of oneself
// nor of the last active owner; refusals leave no audit row; a
// deactivated user's session ends; another account's user is a 404.
func TestSettingsTeamRoles(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		ana := h.signedIn("ana@acme.test", "ana-password")
		sara := h.signedIn("sara@acme.test", "sara-password")
		// Leave Ana the only active owner.
		for _, key := range []string{"eva", "luis", "shared"} {
			ana.post("/app/settings/team/"+itoa(a.Users[key])+"/role", url.Values{"role": {"staff"}}).must(t, http.StatusSeeOther)
		}
		audits := h.count("audit_log", "1 = 1")
		for _, tc := range []struct {
			path string
			form url.Values
			text string
		}{
			{"/app/settings/team/" + itoa(a.Users["ana"]) + "/role", url.Values{"role": {"staff"}}, "your own role"},
			{"/app/settings/team/" + itoa(a.Users["ana"]) + "/active", url.Values{"active": {"false"}}, "deactivate yourself"},
			{"/app/settings/team/" + itoa(a.Users["sara"]) + "/role", url.Values{"role": {"king"}}, "Choose a role"},
		} {
			ana.follow(ana.post(tc.path, tc.form)).contains(t, tc.text)
		}
		if h.count("audit_log", "1 = 1") != audits {
			t.Fatal("a refusal was audited")
		}
		// Promote Sara, then she can demote Ana; the last owner stays.
		ana.follow(ana.post("/app/settings/team/"+itoa(a.Users["sara"])+"/role", url.Values{"role": {"owner"}})).contains(t, "Sara Staff is now owner.")
		sara.get("/app/settings/team").must(t, http.StatusOK)
		sara.follow(sara.post("/app/settings/team/"+itoa(a.Users["ana"])+"/role", url.Values{"role": {"staff"}})).contains(t, "is now staff")
		ana.get("/app/settings").must(t, http.StatusForbidden)
		sara.follow(sara.post("/app/settings/team/"+itoa(a.Users["ana"])+"/active", url.Values{"active": {"false"}})).contains(t, "can no longer sign in")
		ana.get("/app/pipelines").must(t, http.StatusSeeOther) // signed out
		if h.count("audit_log", "action = 'role_changed' AND object_id = ? AND summary = 'Ana Ruiz: owner → staff'", itoa(a.Users["ana"])) != 1 ||
			h.count("audit_log", "action = 'deactivated' AND object_id = ?", itoa(a.Users["ana"])) != 1 {
			t.Fatal("role change or deactivation not audited")
		}
		// Sara is the last active owner: nobody can demote her, and no
		// reactivated owner is needed for that rule to hold.
		sara.follow(sara.post("/app/settings/team/"+itoa(a.Users["ana"])+"/active", url.Values{"active": {"true"}})).contains(t, "can sign in again")
		// Another account's user.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/settings/team/"+itoa(a.Users["sara"])+"/role", url.Values{"role": {"staff"}}).must(t, http.StatusNotFound)
		bob.post("/app/settings/team/"+itoa(a.Users["sara"])+"/active", url.Values{"active": {"false"}}).must(t, http.StatusNotFound)
		if h.count("users", "id = ? AND role = 'owner' AND active = ?", a.Users["sara"], true) != 1 {
			t.Fatal("another account changed Sara")
		}
	})
}

// TestSettingsNotifications: the form saves the calendar's settings
// (audited), a bad lead time is refused and writes nothing.
func TestSettingsNotifications(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get("/app/settings/notifications").must(t, http.StatusOK)
		ana.follow(ana.post("/app/settings/notifications", url.Values{"confirmation_request": {"on"}, "reminders": {"2h, 24h"}})).
			contains(t, "Notification settings saved.", `value="24h, 2h"`, "checked")
		var raw string
		store.QueryRow(t.Context(), `SELECT notifications FROM accounts WHERE slug = 'acme'`).Scan(&raw)
		if raw != `{"confirmation_request":true,"reminders":["24h","2h"]}` {
			t.Fatalf("stored %s", raw)
		}
		for _, bad := range []string{"soon", "-2h", "2h, 120m", "1h,2h,3h,4h,5h,6h", "40d"} {
			ana.follow(ana.post("/app/settings/notifications", url.Values{"reminders": {bad}})).contains(t, "flash error")
		}
		store.QueryRow(t.Context(), `SELECT notifications FROM accounts WHERE slug = 'acme'`).Scan(&raw)
		if raw != `{"confirmation_request":true,"reminders":["24h","2h"]}` {
			t.Fatalf("a refused save wrote %s", raw)
		}
		if h.count("audit_log", "object_type = 'notifications' AND summary = 'confirmation request on; reminders 24h, 2h'") != 1 || h.count("audit_log", "1 = 1") != 1 {
			t.Fatal("audit rows")
		}
	})
}

// TestSettingsMyLanguage: any user (staff too) picks their language.
func TestSettingsMyLanguage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		sara := h.signedIn("sara@acme.test", "sara-password")
		sara.follow(sara.post("/app/settings/me", url.Values{"language": {"es"}})).must(t, http.StatusOK).contains(t, "Idioma guardado.", "Mis preferencias")
		sara.follow(sara.post("/app/settings/me", url.Values{"language": {"fr"}})).contains(t, "flash error")
		sara.follow(sara.post("/app/settings/me", url.Values{"language": {"en"}})).contains(t, "Language saved.")
		sara.follow(sara.post("/app/settings/me", url.Values{"language": {""}})).contains(t, "Mis preferencias") // the account's Spanish
		if h.count("users", "email = 'sara@acme.test' AND language = ''") != 1 {
			t.Fatal("the choice was not stored")
		}
	})
}

// TestSettingsAuditPages: the audit log pages by 50, newest first.
func TestSettingsAuditPages(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		for i := range 51 {
			ana.post("/app/settings/notifications", url.Values{"reminders": {itoa(int64(i+1)) + "h"}}).must(t, http.StatusSeeOther)
		}
		first := ana.get("/app/settings/audit").must(t, http.StatusOK).contains(t, "reminders 51h", "?before=")
		if strings.Contains(first.Body, "reminders 1h<") {
			t.Fatal("the first page holds the oldest entry")
		}
		next := regexp.MustCompile(`/app/settings/audit\?before=(\d+)`).FindStringSubmatch(first.Body)
		ana.get("/app/settings/audit?before="+next[1]).must(t, http.StatusOK).contains(t, "reminders 1h<")
		ana.get("/app/settings/audit?before=x").must(t, http.StatusBadRequest)
	})
}

// TestSettingsKeysAudited: creating and revoking an API key is audited by
// name, never with the key.
func TestSettingsKeysAudited(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		p := ana.post("/app/keys", url.Values{"name": {"crm"}}).must(t, http.StatusOK)
		key := regexp.MustCompile(`id="new-key" readonly value="([^"]+)"`).FindStringSubmatch(p.Body)
		if key == nil {
			t.Fatal("no key shown")
		}
		ana.post("/app/keys/revoke", url.Values{"name": {"crm"}}).must(t, http.StatusSeeOther)
		if h.count("audit_log", "object_type = 'api_key' AND object_id = 'crm' AND action IN ('created', 'revoked')") != 2 {
			t.Fatal("key changes not audited")
		}
		if h.count("audit_log", "summary LIKE ?", "%"+key[1]+"%") != 0 {
			t.Fatal("the audit log holds the key")
		}
	})
}

// TestSettingsInSpanish: an owner who reads Spanish gets every settings
// page in Spanish.
func TestSettingsInSpanish(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		eva := h.signedIn("eva@acme.test", "eva-password")
		for path, text := range map[string]string{
			"/app/settings":               "El catálogo de la clínica",
			"/app/settings/notifications": "Recordatorios antes de la cita",
			"/app/settings/webhooks":      "Añadir un webhook",
			"/app/settings/team":          "Invitar a alguien",
			"/app/settings/audit":         "Aún no hay cambios registrados.",
			"/app/settings/channels":      "Añadir un canal",
			"/app/keys":                   "Crear una clave",
			"/app/settings/me":            "Idioma del panel",
		} {
			eva.get(path).must(t, http.StatusOK).contains(t, `lang="es"`, text)
		}
	})
}
