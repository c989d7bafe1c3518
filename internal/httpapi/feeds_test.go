package httpapi_test

// The professionals' calendar feeds (docs/calendar-feeds.md) through the
// real server: what a feed lists and for which window, parsed by an
// independent iCalendar parser as a calendar app would; revoking and
// replacing links; tenancy; headers; the per-address limit; and the
// access log, which never holds a token.

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/feeds"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// makeFeed makes a feed link for one of slug's professionals, as the
// dashboard's settings do, and returns its token.
func (h *harness) makeFeed(slug string, professionalID int64) string {
	h.t.Helper()
	acct, err := account.BySlug(context.Background(), h.store, slug)
	if err != nil {
		h.t.Fatal(err)
	}
	var made feeds.Made
	err = h.store.Transact(context.Background(), func(tx *db.Tx) error {
		made, err = feeds.Make(context.Background(), tx, acct, professionalID, h.clock.Now())
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return made.Token
}

// feedEvent is an event of a served feed, as another parser reads it.
type feedEvent struct {
	uid, summary, status string
	start, end           time.Time
}

// readFeed gets a feed and parses it with go-ical; it fails unless the
// answer is a 200 calendar.
func (h *harness) readFeed(token string) (name string, events []feedEvent) {
	h.t.Helper()
	res := h.do("GET", feeds.Path(token), "", nil).must(h.t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "text/calendar; charset=utf-8" {
		h.t.Errorf("Content-Type = %q", ct)
	}
	cal, err := goical.NewDecoder(bytes.NewReader(res.Raw)).Decode()
	if err != nil {
		h.t.Fatalf("the feed does not parse: %v\n%s", err, res.Raw)
	}
	name, _ = cal.Props.Text("X-WR-CALNAME")
	for _, ev := range cal.Events() {
		var e feedEvent
		e.uid, _ = ev.Props.Text(goical.PropUID)
		e.summary, _ = ev.Props.Text(goical.PropSummary)
		e.status = ev.Props.Get(goical.PropStatus).Value
		if e.start, err = ev.DateTimeStart(time.UTC); err != nil {
			h.t.Fatalf("DTSTART: %v", err)
		}
		if e.end, err = ev.DateTimeEnd(time.UTC); err != nil {
			h.t.Fatalf("DTEND: %v", err)
		}
		events = append(events, e)
	}
	return name, events
}

// bookAt books Limpieza dental for a client at a Madrid wall-clock start
// through the API and returns the appointment's id.
func (h *harness) bookAt(key string, over map[string]any, start string) int64 {
	h.t.Helper()
	at, err := time.Parse("2006-01-02T15:04:05", start)
	if err != nil {
		h.t.Fatal(err)
	}
	body := booking(over)
	body["start_at"], body["end_at"] = start, at.Add(30*time.Minute).Format("2006-01-02T15:04:05")
	return int64(h.do("POST", calendarPath+"/events", key, body).must(h.t, http.StatusOK).num("data", "id"))
}

func TestCalendarFeedListsTheWindow(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a := h.acme()
		lucia := map[string]any{}
		pablo := map[string]any{"client": map[string]any{"first_name": "Pablo", "last_name": "Gil", "phone": "+34611000002"}}
		garcia := map[string]any{"professional_name": drop, "professional_id": a.Professionals["garcia"], "client": map[string]any{"first_name": "Eva", "phone": "+34611000003"}}
		// testNow is 2026-11-23 09:00 UTC: the window is 2026-10-24 09:00 to 2027-05-22 09:00 UTC.
		for _, test := range []struct {
			name, start string // Madrid wall clock
			over        map[string]any
			cancel      bool
			listed      bool
		}{
			{"next week", "2026-12-01T10:00:00", lucia, false, true},
			{"another client today", "2026-11-23T12:00:00", pablo, false, true},
			{"29 days ago", "2026-10-25T10:00:00", lucia, false, true},
			{"31 days ago", "2026-10-23T10:00:00", lucia, false, false},
			{"179 days ahead", "2027-05-20T10:00:00", pablo, false, true},
			{"181 days ahead", "2027-05-23T10:00:00", pablo, false, false},
			{"cancelled", "2026-12-02T10:00:00", lucia, true, false},
			{"another professional", "2026-12-01T11:00:00", garcia, false, false},
		} {
			id := h.bookAt(acmeKey, test.over, test.start)
			if test.cancel {
				acct, _ := account.BySlug(context.Background(), store, "acme")
				if err := calendar.CancelAppointment(context.Background(), store, acct, id, calendar.Change{By: "staff"}, h.clock.Now()); err != nil {
					t.Fatal(err)
				}
			}
		}
		token := h.makeFeed("acme", a.Professionals["lopez"])
		name, events := h.readFeed(token)
		if name != "Dr. López · Acme Clinic" {
			t.Errorf("calendar name = %q", name)
		}
		madrid, _ := time.LoadLocation("Europe/Madrid")
		var got []string
		for _, e := range events {
			got = append(got, e.start.In(madrid).Format("2006-01-02T15:04")+" "+e.summary+" "+e.status)
			if e.end.Sub(e.start) != 30*time.Minute || !strings.HasSuffix(e.uid, "-acme@frontdesk") {
				t.Errorf("event %+v", e)
			}
		}
		want := []string{
			"2026-10-25T10:00 Limpieza dental · Lucía Pérez CONFIRMED",
			"2026-11-23T12:00 Limpieza dental · Pablo Gil CONFIRMED",
			"2026-12-01T10:00 Limpieza dental · Lucía Pérez CONFIRMED",
			"2027-05-20T10:00 Limpieza dental · Pablo Gil CONFIRMED",
		}
		if !slices.Equal(got, want) {
			t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The window follows the server's clock: 20 days on, the oldest
		// appointment has left it and the one 181 days ahead has come in.
		h.clock.Advance(20 * 24 * time.Hour)
		_, events = h.readFeed(token)
		if len(events) != 4 || events[0].summary != "Limpieza dental · Pablo Gil" || events[3].start.In(madrid).Format("2006-01-02") != "2027-05-23" {
			t.Errorf("20 days on: %+v", events)
		}
		// Dra. García's feed is hers alone.
		if _, events := h.readFeed(h.makeFeed("acme", a.Professionals["garcia"])); len(events) != 1 || events[0].summary != "Limpieza dental · Eva" {
			t.Errorf("García's feed: %+v", events)
		}
	})
}

func TestCalendarFeedLinks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a, o := h.acme(), h.other()
		h.bookAt(acmeKey, nil, "2026-12-01T10:00:00")
		h.bookAt(otherKey, map[string]any{"professional_name": "Dr. Jones", "timezone": "Europe/London",
			"client": map[string]any{"first_name": "Sam", "last_name": "Othermark", "phone": "+447700900123"}}, "2026-12-01T10:00:00")
		first := h.makeFeed("acme", a.Professionals["lopez"])
		otherToken := h.makeFeed("other", o.Professionals["jones"])
		if _, events := h.readFeed(first); len(events) != 1 || events[0].summary != "Limpieza dental · Lucía Pérez" {
			t.Fatalf("acme's feed: %+v", events)
		}
		// Each account's link shows its own professional's appointments only.
		name, events := h.readFeed(otherToken)
		if name != "Dr. Jones · Other Clinic" || len(events) != 1 || events[0].summary != "Limpieza dental · Sam Othermark" {
			t.Errorf("other's feed %q: %+v", name, events)
		}
		// A new link replaces the old one at once.
		second := h.makeFeed("acme", a.Professionals["lopez"])
		if second == first || len(second) < 22 {
			t.Fatalf("tokens %q then %q", first, second)
		}
		h.readFeed(second)
		if n := h.count("calendar_feeds", "account_id = ?", h.ids["acme"].Account.ID); n != 1 {
			t.Errorf("%d live links for one professional", n)
		}
		// Only a digest is stored: the database never holds a working token.
		if n := h.count("calendar_feeds", "token_hash = ? OR token_hash = ?", first, second); n != 0 {
			t.Errorf("a token is stored as it is")
		}
		// Revoking ends the link at once; another account's link is
		// untouched, and one account cannot revoke another's.
		acme, _ := account.BySlug(context.Background(), store, "acme")
		if _, _, err := feeds.Revoke(context.Background(), store, acme, o.Professionals["jones"]); err == nil {
			t.Errorf("acme revoked other's professional's link")
		}
		if _, revoked, err := feeds.Revoke(context.Background(), store, acme, a.Professionals["lopez"]); err != nil || !revoked {
			t.Fatalf("revoke: %v %v", revoked, err)
		}
		h.readFeed(otherToken)

		// Unknown, revoked, replaced and malformed links all get the same
		// bare 404, with the feed's headers.
		var bodies []string
		for _, path := range []string{feeds.Path(first), feeds.Path(second), feeds.Path(strings.Repeat("A", len(second))),
			feeds.Path("short"), "/ics/" + otherToken, "/ics/" + otherToken + ".ICS", feeds.Path(otherToken + "x")} {
			res := h.do("GET", path, "", nil).must(t, http.StatusNotFound)
			checkFeedHeaders(t, res)
			if strings.Contains(string(res.Raw), "revoked") {
				t.Errorf("%s says too much: %s", path, res.Raw)
			}
			bodies = append(bodies, string(res.Raw))
		}
		for _, b := range bodies[1:] {
			if b != bodies[0] {
				t.Errorf("404 bodies differ: %q and %q", bodies[0], b)
			}
		}
		checkFeedHeaders(t, h.do("GET", feeds.Path(otherToken), "", nil).must(t, http.StatusOK))
	})
}

func checkFeedHeaders(t *testing.T, res response) {
	t.Helper()
	for name, want := range map[string]string{"Cache-Control": "no-store", "X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer"} {
		if got := res.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// Feed reads are limited per client address; the access log never holds
// a token.
func TestCalendarFeedLimitAndLog(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		token := h.makeFeed("acme", h.acme().Professionals["lopez"])
		var logged bytes.Buffer
		h.srv = httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Log: slog.New(slog.NewTextHandler(&logged, nil)),
			RateLimit: httpapi.RateLimit{Feeds: ratelimit.Limit{PerSecond: 1, Burst: 3}}})
		read := func(addr, path string) int {
			req := httptest.NewRequest("GET", path, nil)
			req.RemoteAddr = addr
			return h.send(req).Status
		}
		var got []int
		for range 4 {
			got = append(got, read("203.0.113.7:5000", feeds.Path(token)))
		}
		got = append(got, read("203.0.113.7:5001", feeds.Path("unknown")), read("198.51.100.2:5000", feeds.Path(token)))
		if want := []int{200, 200, 200, 429, 429, 200}; !slices.Equal(got, want) {
			t.Errorf("statuses %v, want %v", got, want)
		}
		h.clock.Advance(time.Second)
		if status := read("203.0.113.7:5000", feeds.Path(token)); status != 200 {
			t.Errorf("a second later: %d", status)
		}
		if strings.Contains(logged.String(), token) || !strings.Contains(logged.String(), "path=/ics/…") {
			t.Errorf("the access log:\n%s", logged.String())
		}
	})
}
