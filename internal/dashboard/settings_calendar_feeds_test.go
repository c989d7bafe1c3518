package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// feedURL finds the feed link a page shows.
var feedURL = regexp.MustCompile(`value="(https?://[^"]+/ics/[A-Za-z0-9_-]{43}\.ics)"`)

// readFeed GETs a feed link from outside the dashboard, as a calendar app.
func (h *harness) readFeed(link string) int {
	h.t.Helper()
	res, err := http.Get(link)
	if err != nil {
		h.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode == http.StatusOK && res.Header.Get("Content-Type") != "text/calendar; charset=utf-8" {
		h.t.Errorf("Content-Type = %q", res.Header.Get("Content-Type"))
	}
	return res.StatusCode
}

// TestSettingsCalendarFeeds: an owner makes a professional's feed link,
// sees it once, replaces and revokes it; each change is one audit entry
// that never holds the link; the link works until it is replaced or
// revoked.
func TestSettingsCalendarFeeds(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		lopez := itoa(h.acme().Professionals["lopez"])
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get("/app/settings/calendar-feeds").must(t, http.StatusOK).contains(t, "Dr. López", "Make a feed link", "no link")

		made := ana.post("/app/settings/calendar-feeds/"+lopez, nil).must(t, http.StatusOK).contains(t, "Feed link for Dr. López", "Copy it now", "From URL")
		m := feedURL.FindStringSubmatch(made.Body)
		if m == nil || !strings.HasPrefix(m[1], h.srv.URL+"/ics/") {
			t.Fatalf("no feed link on the page: %.3000s", made.Body)
		}
		first := m[1]
		if status := h.readFeed(first); status != http.StatusOK {
			t.Fatalf("the new link answers %d", status)
		}
		// Shown once: the page no longer holds it.
		again := ana.get("/app/settings/calendar-feeds").must(t, http.StatusOK).contains(t, "Make a new link", "made ")
		if feedURL.MatchString(again.Body) {
			t.Error("the link is shown again")
		}

		// A new link replaces the old one at once.
		second := feedURL.FindStringSubmatch(ana.post("/app/settings/calendar-feeds/"+lopez, nil).must(t, http.StatusOK).Body)
		if second == nil || second[1] == first {
			t.Fatalf("second link %v", second)
		}
		if h.readFeed(first) != http.StatusNotFound || h.readFeed(second[1]) != http.StatusOK {
			t.Error("the replaced link still works, or the new one does not")
		}

		// Revoking ends it; revoking again changes nothing.
		ana.follow(ana.post("/app/settings/calendar-feeds/"+lopez+"/revoke", nil)).must(t, http.StatusOK).contains(t, "The feed link of Dr. López no longer works.", "no link")
		if status := h.readFeed(second[1]); status != http.StatusNotFound {
			t.Errorf("the revoked link answers %d", status)
		}
		ana.post("/app/settings/calendar-feeds/"+lopez+"/revoke", nil).must(t, http.StatusSeeOther)

		for _, action := range []string{"created", "replaced", "revoked"} {
			if n := h.count("audit_log", "object_type = 'calendar_feed' AND action = ? AND object_id = ? AND summary = ? AND user_name = 'Ana Ruiz'",
				action, lopez, `professional "Dr. López"`); n != 1 {
				t.Errorf("%d audit entries %q", n, action)
			}
		}
		if n := h.auditRows("calendar_feed"); n != 3 {
			t.Errorf("%d audit entries, want 3", n)
		}
		for _, link := range []string{first, second[1]} {
			token := strings.TrimSuffix(link[strings.LastIndex(link, "/")+1:], ".ics")
			if n := h.count("audit_log", "summary LIKE ? OR object_id LIKE ?", "%"+token+"%", "%"+token+"%"); n != 0 {
				t.Error("the audit log holds a token")
			}
		}
		// Spanish.
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get("/app/settings/calendar-feeds").must(t, http.StatusOK).contains(t, "Calendarios por suscripción", "Crear enlace de calendario")
	})
}

// TestSettingsCalendarFeedsWho: staff may not make or revoke links, and an
// owner of another account gets 404 for this account's professionals; the
// link shown uses the configured public URL.
func TestSettingsCalendarFeedsWho(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarnessWith(t, store, func(c *dashboard.Config) { c.PublicURL = "https://clinic.example/" })
		lopez := itoa(h.acme().Professionals["lopez"])
		sara := h.signedIn("sara@acme.test", "sara-password")
		sara.get("/app/settings/calendar-feeds").must(t, http.StatusForbidden)
		sara.post("/app/settings/calendar-feeds/"+lopez, nil).must(t, http.StatusForbidden)
		sara.post("/app/settings/calendar-feeds/"+lopez+"/revoke", nil).must(t, http.StatusForbidden)
		if h.count("calendar_feeds", "1 = 1") != 0 || h.auditRows("calendar_feed") != 0 {
			t.Fatal("staff changed a feed")
		}

		ana := h.signedIn("ana@acme.test", "ana-password")
		m := feedURL.FindStringSubmatch(ana.post("/app/settings/calendar-feeds/"+lopez, nil).must(t, http.StatusOK).Body)
		if m == nil || !strings.HasPrefix(m[1], "https://clinic.example/ics/") {
			t.Fatalf("link %v", m)
		}
		local := h.srv.URL + strings.TrimPrefix(m[1], "https://clinic.example")

		bob := h.newUser()
		bob.signIn("bob@other.test", "bob-password", "")
		bob.get("/app/settings/calendar-feeds").must(t, http.StatusOK)
		if strings.Contains(bob.get("/app/settings/calendar-feeds").Body, "Dr. López") {
			t.Error("another account lists acme's professional")
		}
		for _, path := range []string{"/app/settings/calendar-feeds/" + lopez, "/app/settings/calendar-feeds/" + lopez + "/revoke"} {
			bob.post(path, url.Values{}).must(t, http.StatusNotFound)
		}
		if status := h.readFeed(local); status != http.StatusOK {
			t.Errorf("acme's link answers %d after another account's attempts", status)
		}
		if n := h.count("audit_log", "object_type = 'calendar_feed'"); n != 1 {
			t.Errorf("%d audit entries, want ana's one", n)
		}
	})
}
