package dashboard_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Rows written straight into the store, as the confirmation replies and
// the seat-offer runs leave them (internal/calendar, internal/offers).

// addAppointment writes a booked appointment of slug at start (30 min) with
// a confirmation_status and returns its id.
func (h *harness) addAppointment(slug string, client, service, pro, eventType int64, start time.Time, confirmation string) int64 {
	h.t.Helper()
	var id int64
	err := h.store.QueryRow(context.Background(), `INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id,
			start_at, end_at, timezone, status, source, confirmation_status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'Europe/Madrid', 'booked', 'api', ?, ?, ?) RETURNING id`,
		h.account(slug).ID, client, service, pro, eventType, db.Micros(start), db.Micros(start.Add(30*time.Minute)), confirmation,
		db.Micros(testNow), db.Micros(testNow)).Scan(&id)
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// addHeldEntry writes a queued waiting-list entry whose seat offer names
// [start, start+30 min) with pro, held until expires, and returns its id.
func (h *harness) addHeldEntry(slug string, list, client, service, pro int64, start, expires time.Time) int64 {
	h.t.Helper()
	var id int64
	err := h.store.QueryRow(context.Background(), `INSERT INTO waitlist_entries (account_id, waitlist_id, client_id, service_id, status,
			queue_attempts, queued_at, offered_at, seat_expires_at, offer_professional_id, offer_start_at, offer_end_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, 'queued', 1, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		h.account(slug).ID, list, client, service, db.Micros(testNow), db.Micros(testNow), db.Micros(expires),
		pro, db.Micros(start), db.Micros(start.Add(30*time.Minute)), db.Micros(testNow), db.Micros(testNow)).Scan(&id)
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// row is the table row of the page with that id attribute ("" when absent).
func (p page) row(id string) string {
	m := regexp.MustCompile(`(?s)<tr id="` + regexp.QuoteMeta(id) + `"[^>]*>.*?</tr>`).FindString(p.Body)
	return m
}

// A hostile client name: it must reach every page escaped.
const (
	hostileFirst = `<b>Zoé</b>`
	hostileLast  = `& "Co" <script>x()</script>`
	// What html/template writes for "<b>Zoé</b> & \"Co\" <script>…".
	hostileShown = `&lt;b&gt;Zoé&lt;/b&gt; &amp; &#34;Co&#34; &lt;script&gt;x()&lt;/script&gt;`
)

func TestCalendarConfirmationAndHeldSlots(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a, o := h.acme(), h.other()
		madrid, _ := time.LoadLocation("Europe/Madrid")
		at := func(day, hm string) time.Time {
			t.Helper()
			v, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hm, madrid)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		maria, pedro := a.Clients["maria"], a.Clients["pedro"]
		if _, err := store.Exec(t.Context(), `UPDATE clients SET first_name = ?, last_name = ? WHERE id = ?`, hostileFirst, hostileLast, maria); err != nil {
			t.Fatal(err)
		}
		svc, lopez, visit := a.Services["cleaning"], a.Professionals["lopez"], a.EventTypes["visit"]
		// Wednesday 25 Nov: one appointment per confirmation status.
		pending := h.addAppointment("acme", maria, svc, lopez, visit, at("2026-11-25", "10:00"), "pending")
		confirmed := h.addAppointment("acme", pedro, svc, lopez, visit, at("2026-11-25", "11:00"), "confirmed")
		declined := h.addAppointment("acme", maria, svc, lopez, visit, at("2026-11-25", "12:00"), "declined")
		// A live hold for María this afternoon (held until 12:00 Madrid) and
		// an expired one for Pedro on Tuesday, queued until the next run.
		held := h.addHeldEntry("acme", a.Waitlists["main"], maria, svc, lopez, at("2026-11-23", "15:00"), testNow.Add(2*time.Hour))
		expired := h.addHeldEntry("acme", a.Waitlists["main"], pedro, svc, lopez, at("2026-11-24", "11:00"), testNow.Add(-time.Minute))
		// The other account, same days and times: never shown to acme.
		if _, err := store.Exec(t.Context(), `UPDATE clients SET first_name = 'Otherclient' WHERE id = ?`, o.Clients["maria"]); err != nil {
			t.Fatal(err)
		}
		otherAppt := h.addAppointment("other", o.Clients["maria"], o.Services["cleaning"], o.Professionals["jones"], o.EventTypes["visit"], at("2026-11-25", "10:00"), "confirmed")
		otherHeld := h.addHeldEntry("other", o.Waitlists["main"], o.Clients["maria"], o.Services["cleaning"], o.Professionals["jones"], at("2026-11-24", "09:30"), testNow.Add(2*time.Hour))

		u := h.signedIn("ana@acme.test", "ana-password")
		week := u.get("/app/calendar?date=2026-11-24&view=week").must(t, http.StatusOK)
		week.contains(t, "3 appointments · 1 slot held for waiting-list offers", hostileShown).
			lacks(t, hostileFirst, "<script>x()", "Otherclient", "Dr. Jones", "hold-"+itoa(expired), "hold-"+itoa(otherHeld), "appt-"+itoa(otherAppt))
		for _, tc := range []struct {
			id     int64
			badge  string
			others []string
		}{
			{pending, `<span class="badge conf-pending">? pending</span>`, []string{"conf-confirmed", "conf-declined"}},
			{confirmed, `<span class="badge conf-confirmed">✓ confirmed</span>`, []string{"conf-pending", "conf-declined"}},
			{declined, `<span class="badge conf-declined">✗ declined</span>`, []string{"conf-pending", "conf-confirmed"}},
		} {
			row := week.row("appt-" + itoa(tc.id))
			if !strings.Contains(row, tc.badge) {
				t.Fatalf("appointment %d row lacks %s: %s", tc.id, tc.badge, row)
			}
			for _, x := range tc.others {
				if strings.Contains(row, x) {
					t.Fatalf("appointment %d row shows %s too: %s", tc.id, x, row)
				}
			}
		}
		hold := week.row("hold-" + itoa(held))
		for _, want := range []string{`class="held"`, "15:00–15:30", "Held for <a href=\"/app/clients/" + itoa(maria) + "\">" + hostileShown + "</a> until 12:00",
			"Dr. López", "Limpieza dental", `<span class="badge held">held</span>`, "/app/waitlists#entry-" + itoa(held)} {
			if !strings.Contains(hold, want) {
				t.Fatalf("held row lacks %q: %s", want, hold)
			}
		}
		if strings.Contains(hold, "conf-") {
			t.Fatalf("a held slot shows a confirmation: %s", hold)
		}
		// The hold sits on Monday's table, before Tuesday's.
		if i, j := strings.Index(week.Body, "hold-"+itoa(held)), strings.Index(week.Body, "Tuesday, 24 November 2026"); i < 0 || i > j ||
			i < strings.Index(week.Body, "Monday, 23 November 2026") {
			t.Fatal("the held slot is not under Monday")
		}
		// Day view and the professional filter keep the hold; another
		// account's professional shows nothing of either account.
		u.get("/app/calendar?date=2026-11-23&view=day").must(t, http.StatusOK).contains(t, "hold-"+itoa(held), "0 appointments · 1 slot held")
		u.get("/app/calendar?date=2026-11-24&view=week&professional="+itoa(lopez)).must(t, http.StatusOK).contains(t, "hold-"+itoa(held), "appt-"+itoa(pending))
		u.get("/app/calendar?date=2026-11-24&view=week&professional="+itoa(o.Professionals["jones"])).must(t, http.StatusOK).
			contains(t, "0 appointments.").lacks(t, "hold-", "appt-", "Otherclient")

		// The confirmation filter: each status shows only its appointments
		// and no held slot.
		for _, tc := range []struct {
			status string
			want   int64
		}{{"pending", pending}, {"confirmed", confirmed}, {"declined", declined}} {
			p := u.get("/app/calendar?date=2026-11-24&view=week&confirmation="+tc.status).must(t, http.StatusOK)
			p.contains(t, "1 "+tc.status+" appointment.", "appt-"+itoa(tc.want), `<option value="`+tc.status+`" selected>`,
				"&amp;confirmation="+tc.status).lacks(t, "hold-", "appt-"+itoa(otherAppt))
			for _, id := range []int64{pending, confirmed, declined} {
				if id != tc.want && p.row("appt-"+itoa(id)) != "" {
					t.Fatalf("confirmation=%s shows appointment %d", tc.status, id)
				}
			}
		}
		// An unknown value is refused, as on the activity page, and escaped.
		u.get("/app/calendar?confirmation=maybe").must(t, http.StatusBadRequest).contains(t, "Unknown confirmation &#34;maybe&#34;", "pending, confirmed, declined")
		u.get("/app/calendar?confirmation=%3Cscript%3E").must(t, http.StatusBadRequest).lacks(t, "<script>").contains(t, "&lt;script&gt;")

		// The waiting list: the live offer's slot, held, and when it ends;
		// the expired one says so.
		wl := u.get("/app/waitlists").must(t, http.StatusOK).lacks(t, hostileFirst, "Otherclient")
		entry := wl.row("entry-" + itoa(held))
		for _, want := range []string{hostileShown, "queued", "Offered <strong>Mon 23 Nov, 15:00–15:30</strong> with Dr. López",
			`<span class="badge held">held</span> until 23 Nov 2026, 12:00`} {
			if !strings.Contains(entry, want) {
				t.Fatalf("entry row lacks %q: %s", want, entry)
			}
		}
		gone := wl.row("entry-" + itoa(expired))
		for _, want := range []string{"Offered <strong>Tue 24 Nov, 11:00–11:30</strong> with Dr. López", "hold expired</span> at 23 Nov 2026, 09:59"} {
			if !strings.Contains(gone, want) {
				t.Fatalf("expired entry row lacks %q: %s", want, gone)
			}
		}

		// Once the hold ends, the calendar no longer shows it.
		h.clock.Set(testNow.Add(2*time.Hour + time.Second))
		u.get("/app/calendar?date=2026-11-24&view=week").must(t, http.StatusOK).contains(t, "3 appointments.").lacks(t, "hold-")
		u.get("/app/waitlists").must(t, http.StatusOK).contains(t, "hold expired</span> at 23 Nov 2026, 12:00")
		h.clock.Set(testNow)

		// The other account sees its own rows and none of acme's; its hold
		// ends on another day than its slot, so the day is named.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.get("/app/calendar?date=2026-11-24&view=week").must(t, http.StatusOK).
			contains(t, "1 appointment · 1 slot held", "appt-"+itoa(otherAppt), "hold-"+itoa(otherHeld), "Held for <a href=\"/app/clients/"+itoa(o.Clients["maria"])+"\">Otherclient García</a> until Mon 23 Nov, 11:00").
			lacks(t, "Zoé", "Dr. López", "appt-"+itoa(pending), "hold-"+itoa(held))
		bob.get("/app/waitlists").must(t, http.StatusOK).contains(t, "entry-"+itoa(otherHeld), "with Dr. Jones").lacks(t, "Zoé", "Dr. López")
		bob.get("/app/calendar?date=2026-11-24&view=week&professional="+itoa(lopez)).must(t, http.StatusOK).contains(t, "0 appointments.").lacks(t, "hold-", "Zoé")
	})
}
