package dashboard_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

var slotPick = regexp.MustCompile(`href="(\?[^"]*start=([^"&]+)[^"]*)"`)

// TestMovePage: the reschedule page lists one day of free slots with day
// navigation and a professional filter; a slot picked asks to confirm, and
// the confirmation moves it; another time that is not free is refused with
// its warnings, and moved only by the second, overriding submit.
func TestMovePage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		a := h.acme()
		book := func(phone, start, end string) string {
			t.Helper()
			status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
				"client": map[string]any{"first_name": "Lola", "phone": phone}, "service_id": a.Services["cleaning"],
				"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
				"start_at": start, "end_at": end, "timezone": "Europe/Madrid"})
			if status != 200 {
				t.Fatalf("book: %d %v", status, body)
			}
			return itoa(int64(body["data"].(map[string]any)["id"].(float64)))
		}
		id := book("+34600555666", "2026-11-25T10:00:00", "2026-11-25T10:30:00")
		other := book("+34600555667", "2026-11-24T12:00:00", "2026-11-24T12:30:00")
		at := func(appt, wall string) int {
			t.Helper()
			start, _ := time.ParseInLocation("2006-01-02T15:04", wall, madridZone(t))
			return h.count("appointments", "id = ? AND start_at = ?", appt, db.Micros(start))
		}
		path := "/app/appointments/" + id + "/reschedule"

		// A day of slots, the next day reachable, filtered by professional.
		day := u.get(path+"?date=2026-11-24&professional_id="+itoa(a.Professionals["lopez"])).must(t, http.StatusOK).
			contains(t, "Free slots on Tuesday, 24 November", "?date=2026-11-25", "?date=2026-11-23", "Other time")
		m := slotPick.FindStringSubmatch(day.Body)
		if m == nil {
			t.Fatalf("no slot to pick: %.3000s", day.Body[strings.Index(day.Body, "<main"):])
		}
		pick, start := html.UnescapeString(m[1]), html.UnescapeString(m[2])
		if start, _ = url.QueryUnescape(start); start[:10] != "2026-11-24" {
			t.Fatalf("first slot %q is not on the day shown", start)
		}
		// Picking a slot moves nothing until it is confirmed.
		confirm := u.get(path+pick).must(t, http.StatusOK).contains(t, "Confirm the move", `value="`+start+`"`)
		if regexp.MustCompile(`name="override"`).MatchString(confirm.Body) {
			t.Fatal("the confirm step of a free slot sends the override")
		}
		if at(id, start) != 0 {
			t.Fatal("picking a slot moved the appointment")
		}
		u.follow(u.post(path, url.Values{"start": {start}, "professional_id": {itoa(a.Professionals["lopez"])}})).contains(t, "moved to")
		if at(id, start) != 1 {
			t.Fatal("the confirmed slot was not taken")
		}

		for _, tc := range []struct {
			name, start, warning string
		}{
			{"taken slot", "2026-11-24T12:00", "It overlaps another appointment of"},
			{"in the past", "2026-11-20T10:00", "The new time is in the past."},
			{"not working", "2026-11-29T03:00", "does not work at that time."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				form := url.Values{"start": {tc.start}, "professional_id": {itoa(a.Professionals["lopez"])}, "return": {"calendar"}}
				u.post(path, form).must(t, http.StatusConflict).
					contains(t, "That time is not free", tc.warning, `name="override" value="1"`, "Move it anyway", `value="`+tc.start+`"`)
				if at(id, tc.start) != 0 {
					t.Fatal("a refused move moved the appointment")
				}
				form.Set("override", "1")
				p := u.post(path, form).must(t, http.StatusSeeOther)
				u.follow(p).contains(t, "moved to", tc.warning)
				if at(id, tc.start) != 1 {
					t.Fatal("the overriding submit did not move it")
				}
			})
		}
		if at(other, "2026-11-24T12:00") != 1 {
			t.Fatal("the other appointment moved")
		}
	})
}

func madridZone(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Madrid")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
