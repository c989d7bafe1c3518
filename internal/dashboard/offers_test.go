package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// addWaiting puts a client on acme's list for cleaning through the API and
// returns the entry's id.
func (h *harness) addWaiting(phone, first string, priority int) int64 {
	h.t.Helper()
	status, body := h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
		"phone": phone, "first_name": first, "service_ids": []int64{h.acme().Services["cleaning"]}, "priority": priority})
	if status != 200 {
		h.t.Fatalf("add: %d %v", status, body)
	}
	return int64(body["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)["id"].(float64))
}

func (h *harness) entryStatus(id int64) string {
	h.t.Helper()
	var s string
	if err := h.store.QueryRow(context.Background(), `SELECT status FROM waitlist_entries WHERE id = ?`, id).Scan(&s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

// offerForm is the offer page's form for a time of Dr. López.
func (h *harness) offerForm(start time.Time, entry int64) url.Values {
	v := url.Values{"professional_id": {itoa(h.acme().Professionals["lopez"])}, "start": {start.UTC().Format(time.RFC3339)}}
	if entry != 0 {
		v.Set("entry_id", itoa(entry))
	}
	return v
}

// followAll follows redirects until a page answers.
func (u *user) followAll(p page) page {
	u.h.t.Helper()
	for i := 0; p.Status == http.StatusSeeOther && i < 5; i++ {
		p = u.get(p.Location)
	}
	return p.must(u.h.t, http.StatusOK)
}

func TestOfferFreedTimeByHand(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		first := h.addWaiting("+34611000001", "Primera", 1)
		second := h.addWaiting("+34611000002", "Segunda", 2)
		eleven := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC) // Monday 11:00 Madrid
		pro := itoa(h.acme().Professionals["lopez"])
		offerPage := "/app/waitlists/offer?" + h.offerForm(eleven, 0).Encode()

		p := u.get(offerPage).must(t, http.StatusOK).contains(t, "Offer to the next in line", "Offer to this patient", "match-"+itoa(first), "match-"+itoa(second))
		if strings.Index(p.Body, "match-"+itoa(first)) > strings.Index(p.Body, "match-"+itoa(second)) {
			t.Fatal("the matches are not in queue order")
		}

		// To one patient: held, and the offer's message is queued.
		p = u.post("/app/waitlists/offer", h.offerForm(eleven, second)).must(t, http.StatusSeeOther)
		if p.Location != "/app/waitlists#entry-"+itoa(second) {
			t.Fatalf("offer went to %q", p.Location)
		}
		u.follow(p).contains(t, "Offered Mon 23 Nov, 11:00 to Segunda", "held until Mon 23 Nov, 12:00", "Accept for the patient", "Release the seat")
		if s := h.entryStatus(second); s != "queued" {
			t.Fatalf("second is %s", s)
		}
		if n := h.count("outbox", "kind = 'seat_offer' AND source_id = ?", second); n != 1 {
			t.Fatalf("%d seat-offer messages", n)
		}

		// Refusals: flashes, never a 500.
		for _, refusal := range []struct {
			name  string
			form  url.Values
			flash string
		}{
			{"held time", h.offerForm(eleven, first), "no longer free"},
			{"past", h.offerForm(testNow.Add(-time.Hour), 0), "already begun"},
			{"other account", url.Values{"professional_id": {itoa(h.other().Professionals["jones"])}, "start": {eleven.Format(time.RFC3339)}}, "not in this workspace"},
			{"malformed", url.Values{"professional_id": {pro}, "start": {"tomorrow"}}, "Choose a free time to offer"},
		} {
			t.Run(refusal.name, func(t *testing.T) {
				u.followAll(u.post("/app/waitlists/offer", refusal.form).must(t, http.StatusSeeOther)).contains(t, refusal.flash)
			})
		}
		u.follow(u.get("/app/waitlists/offer?"+url.Values{"professional_id": {itoa(h.other().Professionals["jones"])}, "start": {eleven.Format(time.RFC3339)}}.Encode())).
			contains(t, "not in this workspace")
		u.follow(u.post("/app/offers/999999/accept", nil)).contains(t, "not in this workspace")

		// Released: back to waiting; the list offers its seats at once.
		u.get("/app/waitlists")
		u.follow(u.post("/app/offers/"+itoa(second)+"/release", nil)).contains(t, "Released the seat held for Segunda")
		if s := h.entryStatus(second); s != "waiting" {
			t.Fatalf("released entry is %s", s)
		}
		u.follow(u.post("/app/offers/"+itoa(second)+"/release", nil)).contains(t, "no longer holds its slot")

		// The next in line for 11:00, then accepted on the patient's behalf.
		u.get(offerPage).must(t, http.StatusOK)
		u.follow(u.post("/app/waitlists/offer", h.offerForm(eleven, 0))).contains(t, "Offered Mon 23 Nov, 11:00 to Segunda")
		u.get("/app/waitlists")
		u.follow(u.post("/app/offers/"+itoa(second)+"/accept", nil)).contains(t, "Booked Segunda")
		if n := h.count("appointments", "professional_id = ? AND start_at = ? AND source = 'waitlist' AND status = 'booked'", h.acme().Professionals["lopez"], db.Micros(eleven)); n != 1 {
			t.Fatalf("%d appointments at 11:00", n)
		}
		if n := h.count("outbox", "source_type = 'event:appointment.booked' AND body LIKE ?", `%"source":"waitlist"%`); n != 1 {
			t.Fatalf("%d appointment.booked webhooks", n)
		}
		if s := h.entryStatus(second); s != "booked" {
			t.Fatalf("accepted entry is %s", s)
		}
		if n := h.count("audit_log", "object_type = 'waitlist_entry' AND object_id = ?", itoa(second)); n != 4 {
			t.Fatalf("%d audit rows for the entry, want 4 (offered, released, offered, accepted)", n)
		}
		// The time is taken now.
		u.follow(u.get(offerPage)).contains(t, "no longer free")
	})
}

// Quiet hours hold an offer made by hand as they hold the automatic ones.
func TestOfferByHandInQuietHours(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		if _, err := (&workspace.Applier{DB: store, Now: h.clock.Now}).Apply(context.Background(),
			[]byte("account: {slug: acme}\nmessaging: {quiet_hours: \"09:00-12:00\"}\n")); err != nil {
			t.Fatal(err)
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		entry := h.addWaiting("+34611000001", "Primera", 1)
		three := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC) // Monday 15:00 Madrid; now is 10:00, inside the window
		u.follow(u.post("/app/waitlists/offer", h.offerForm(three, entry))).
			contains(t, "held until Mon 23 Nov, 14:00", "Quiet hours: the message goes out at Mon 23 Nov, 12:00")
		// A time that begins before the window ends could not be offered in time.
		u.followAll(u.post("/app/waitlists/offer", h.offerForm(time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC), entry))).
			contains(t, "begins before quiet hours end")
		var scheduled, expires int64
		store.QueryRow(context.Background(), `SELECT scheduled_at FROM outbox WHERE kind = 'seat_offer' AND source_id = ?`, entry).Scan(&scheduled)
		store.QueryRow(context.Background(), `SELECT seat_expires_at FROM waitlist_entries WHERE id = ?`, entry).Scan(&expires)
		if want := time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC); !db.Time(scheduled).Equal(want) {
			t.Errorf("message at %s, want %s", db.Time(scheduled), want)
		}
		if want := time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC); !db.Time(expires).Equal(want) {
			t.Errorf("hold until %s, want %s", db.Time(expires), want)
		}
	})
}

// "Book now" lists the free times that suit the entry and opens the
// booking form with the client chosen; booking takes the entry off.
func TestBookNowFromTheWaitingList(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		entry := h.addWaiting("+34611000001", "Primera", 1)
		u.get("/app/waitlists").contains(t, "/app/waitlists/entries/"+itoa(entry)+"/book")
		p := u.get("/app/waitlists/entries/"+itoa(entry)+"/book").must(t, http.StatusOK).contains(t, "Primera", "Dr. López")
		i := strings.Index(p.Body, `href="/app/book?`)
		if i < 0 {
			t.Fatalf("no booking link: %.2000s", p.Body)
		}
		link := strings.ReplaceAll(p.Body[i+6:i+6+strings.Index(p.Body[i+6:], `"`)], "&amp;", "&")
		form := u.get(link).must(t, http.StatusOK)
		var client int64
		store.QueryRow(context.Background(), `SELECT client_id FROM waitlist_entries WHERE id = ?`, entry).Scan(&client)
		form.contains(t, `value="`+itoa(client)+`" checked`)
		q, _ := url.ParseQuery(link[strings.Index(link, "?")+1:])
		v := url.Values{"professional_id": q["professional_id"], "service_id": q["service_id"], "start": q["start"],
			"client_id": {itoa(client)}, "event_type_id": {itoa(h.acme().EventTypes["visit"])}}
		u.follow(u.post("/app/book", v)).contains(t, "Booked")
		if s := h.entryStatus(entry); s != "booked" {
			t.Fatalf("entry is %s after booking", s)
		}
	})
}
