package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBookingConcurrentNewPhone books the same new phone from many requests
// at once: one client is created, every appointment is written.
func TestBookingConcurrentNewPhone(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		const n = 8
		results := make(chan response, n)
		for range n {
			go func() {
				results <- h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("Nuevo", "", "+34622000000")}))
			}()
		}
		created, clientIDs := 0, map[float64]bool{}
		for range n {
			res := <-results
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Raw)
			}
			if res.get("client_created") == true {
				created++
			}
			clientIDs[res.num("client_id")] = true
		}
		if created != 1 || len(clientIDs) != 1 {
			t.Errorf("client_created %d times, %d distinct clients; want 1 and 1", created, len(clientIDs))
		}
		if c, a := h.count("clients", "phone_national = '622000000'"), h.count("appointments", ""); c != 1 || a != n {
			t.Errorf("clients = %d, appointments = %d; want 1 and %d", c, a, n)
		}
	})
}

// TestBookingAtomic makes the appointment insert fail after the new client
// was written: the 500 leaves nothing behind, and the retry books normally.
func TestBookingAtomic(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		ctx := t.Context()
		fail, heal := []string{`CREATE TRIGGER fail_booking BEFORE INSERT ON appointments BEGIN SELECT RAISE(ABORT, 'injected failure'); END`},
			[]string{`DROP TRIGGER fail_booking`}
		if store.Engine() == db.Postgres {
			// A check no new row passes (NOT VALID: the rows already there
			// are not checked); Citus refuses triggers on its tables.
			fail = []string{`ALTER TABLE appointments ADD CONSTRAINT fail_booking CHECK (account_id < 0) NOT VALID`}
			heal = []string{`ALTER TABLE appointments DROP CONSTRAINT fail_booking`}
		}
		for _, q := range fail {
			if _, err := store.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		body := booking(map[string]any{"client": client("Reintento", "", "+34633000000")})
		res := h.do("POST", calendarPath+"/events", acmeKey, body).must(t, 500)
		if res.errorCode() != "INTERNAL_ERROR" || strings.Contains(string(res.Raw), "injected") {
			t.Errorf("500 body: %s", res.Raw)
		}
		if c := h.count("clients", "phone_national = '633000000'"); c != 0 {
			t.Fatalf("the failed booking left %d clients", c)
		}
		for _, q := range heal {
			if _, err := store.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		res = h.do("POST", calendarPath+"/events", acmeKey, body).must(t, 200)
		if res.get("client_created") != true || h.count("appointments", "") != 1 {
			t.Errorf("retry: %s", res.Raw)
		}
	})
}

// TestBookingEffects: a booking sets off what a dashboard booking does, in
// its own transaction: the calendar's confirmation request and reminders
// (acme: confirmation on, reminders 24h and 2h) and the resolution of the
// client's open waiting-list entry for the service.
func TestBookingEffects(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/calendar.yaml")
		a, acmeID := h.acme(), h.ids["acme"].Account.ID
		maria, cleaning := a.Clients["maria"], a.Services["cleaning"]
		now := db.Micros(testNow)
		if _, err := store.Exec(t.Context(), `INSERT INTO waitlist_entries (account_id, waitlist_id, client_id, service_id, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'waiting', ?, ?)`, acmeID, a.Waitlists["main"], maria, cleaning, now, now); err != nil {
			t.Fatal(err)
		}

		// A refused booking sends nothing and resolves nothing.
		h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("", "", "+34600111222"), "event_type_name": "Llamada"})).must(t, 400)
		if n := h.count("outbox", "account_id = ?", acmeID); n != 0 {
			t.Fatalf("a refused booking queued %d messages", n)
		}

		res := h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"client": client("", "", "+34600111222")})).must(t, 200)
		appt := int64(res.num("data", "id"))
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		for _, m := range []struct {
			kind string
			at   time.Time
		}{{"booking_confirmation", testNow}, {"booking_reminder", start.Add(-24 * time.Hour)}, {"booking_reminder", start.Add(-2 * time.Hour)}} {
			if n := h.count("outbox", "account_id = ? AND kind = ? AND scheduled_at = ? AND recipient = '+34600111222' AND client_id = ? AND source_type = 'booking' AND source_id = ?",
				acmeID, m.kind, db.Micros(m.at), maria, appt); n != 1 {
				t.Errorf("%s at %s: %d messages, want 1", m.kind, m.at, n)
			}
		}
		if n := h.count("outbox", "source_type = 'booking' AND source_id = ?", appt); n != 3 {
			t.Errorf("messages for the booking = %d, want 3", n)
		}
		if n := h.count("waitlist_entries", "client_id = ? AND service_id = ? AND status = 'booked' AND resolved_at = ?", maria, cleaning, now); n != 1 {
			t.Errorf("waiting-list entry not resolved as booked")
		}

		// A booking 90 minutes ahead: the confirmation only (both reminder times have passed).
		res = h.do("POST", calendarPath+"/events", acmeKey, booking(map[string]any{"start_at": "2026-11-23T11:30:00", "end_at": "2026-11-23T12:00:00"})).must(t, 200)
		soon := int64(res.num("data", "id"))
		if c, r := h.count("outbox", "source_id = ? AND kind = 'booking_confirmation'", soon), h.count("outbox", "source_id = ? AND kind = 'booking_reminder'", soon); c != 1 || r != 0 {
			t.Errorf("booking in 90 minutes: %d confirmations, %d reminders; want 1 and 0", c, r)
		}
	})
}
