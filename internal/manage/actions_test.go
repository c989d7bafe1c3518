package manage_test

import (
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/manage"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestManageConfirmDecline: the link's confirm and decline do what a
// reply does: confirmation_status, appointment.confirmation_changed, the
// reminders withdrawn on decline and put back on confirm.
func TestManageConfirmDecline(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		id := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		token := e.token(e.acct, id)
		pendingReminders := func() int {
			return len(e.strings(`SELECT body FROM outbox WHERE source_type = 'booking' AND source_id = ? AND kind = 'booking_reminder' AND status = 'pending'`, id))
		}
		for i, step := range []struct {
			do        func(string, time.Time) (manage.View, error)
			want      string
			reminders int
		}{
			{func(tok string, now time.Time) (manage.View, error) { return manage.Decline(e.ctx, store, tok, now) }, "declined", 0},
			{func(tok string, now time.Time) (manage.View, error) { return manage.Confirm(e.ctx, store, tok, now) }, "confirmed", 2},
			{func(tok string, now time.Time) (manage.View, error) { return manage.Confirm(e.ctx, store, tok, now) }, "confirmed", 2},
		} {
			v, err := step.do(token, e.now)
			if err != nil || v.Appointment.ConfirmationStatus != step.want {
				t.Fatalf("step %d: %+v %v", i, v, err)
			}
			if s, c := e.status(id); s != "booked" || c != step.want {
				t.Errorf("step %d: stored %s %s", i, s, c)
			}
			if n := pendingReminders(); n != step.reminders {
				t.Errorf("step %d: %d reminders pending, want %d", i, n, step.reminders)
			}
		}
		// The repeated confirm changed nothing: two events, not three.
		evs := e.events("appointment.confirmation_changed", id)
		if len(evs) != 2 || evs[0]["confirmation_status"] != "declined" || evs[1]["confirmation_status"] != "confirmed" {
			t.Errorf("events %v", evs)
		}
	})
}

// TestManageCancel: a patient's cancel says by "patient" and the reason,
// withdraws the messages not sent, and offers the freed time to the
// waiting list at once (the entry is offered a seat without waiting for
// the list's run); the dashboard's cancel says by "staff".
func TestManageCancel(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		id := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		staffID := e.book(e.acct, "+34611000003", "2026-12-01T11:00:00")
		res, err := waitlist.Add(e.ctx, store, e.acct, waitlist.AddRequest{Phone: "+34611000002", FirstName: "Leo", ServiceNames: []string{"Limpieza dental"}}, e.now)
		if err != nil {
			t.Fatal(err)
		}
		entry := res.Entries[0].ID
		entryStatus := func() string {
			return e.strings(`SELECT status FROM waitlist_entries WHERE id = ?`, entry)[0]
		}
		if s := entryStatus(); s != "waiting" {
			t.Fatalf("entry %s before the cancel", s)
		}
		v, err := manage.Cancel(e.ctx, store, e.token(e.acct, id), "I have a cold", e.now)
		if err != nil || v.Appointment.Status != "cancelled" || v.CanCancel || v.CanReschedule {
			t.Fatalf("cancel: %+v %v", v, err)
		}
		evs := e.events("appointment.cancelled", id)
		if len(evs) != 1 || evs[0]["by"] != "patient" || evs[0]["reason"] != "I have a cold" {
			t.Errorf("events %v", evs)
		}
		if left := e.strings(`SELECT kind FROM outbox WHERE source_type = 'booking' AND source_id = ? AND status = 'pending'`, id); len(left) != 0 {
			t.Errorf("messages still pending: %v", left)
		}
		if s := entryStatus(); s != "queued" {
			t.Errorf("entry %s after the cancel, want queued (offered at once)", s)
		}
		if err := calendar.CancelAppointment(e.ctx, store, e.acct, staffID, calendar.Change{By: calendar.ByStaff}, e.now); err != nil {
			t.Fatal(err)
		}
		if evs := e.events("appointment.cancelled", staffID); len(evs) != 1 || evs[0]["by"] != "staff" || evs[0]["reason"] != nil {
			t.Errorf("staff events %v", evs)
		}
	})
}

// TestManageReschedule: a listed slot is taken (by "patient", the
// confirmation asked afresh, the new time no longer listed); the time it
// left is listed again.
func TestManageReschedule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		id := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		token := e.token(e.acct, id)
		if _, err := manage.Confirm(e.ctx, store, token, e.now); err != nil {
			t.Fatal(err)
		}
		listed := func() map[string]bool {
			list, err := manage.Slots(e.ctx, store, token, "2026-12-01", 1, e.now)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for _, s := range list.Slots {
				out[s.StartAt] = true
			}
			return out
		}
		before := listed()
		if !before["2026-12-01T12:00:00"] || before["2026-12-01T10:00:00"] {
			t.Fatalf("slots before %v", before)
		}
		lopez := e.professional("Dr. López")
		start, _ := calendar.ParseWallTime("2026-12-01T12:00:00")
		v, err := manage.Reschedule(e.ctx, store, token, start, &lopez, e.now)
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC); !v.Appointment.StartAt.Equal(want) || v.Appointment.ConfirmationStatus != "pending" {
			t.Errorf("moved %+v", v)
		}
		evs := e.events("appointment.rescheduled", id)
		if len(evs) != 1 || evs[0]["by"] != "patient" || evs[0]["previous_start_at"] != "2026-12-01T09:00:00Z" {
			t.Errorf("events %v", evs)
		}
		after := listed()
		if after["2026-12-01T12:00:00"] || !after["2026-12-01T10:00:00"] {
			t.Errorf("slots after %v", after)
		}
		// The same link, and messages for the new time that carry it.
		link, _ := manage.URL(e.ctx, store, e.acct, id)
		if !strings.HasSuffix(link, token) {
			t.Errorf("link changed: %s", link)
		}
	})
}

// TestManageTenancy: a token names one appointment of one account; even a
// row that tied account A to B's appointment id opens nothing of B.
func TestManageTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		mine := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		theirs := e.book(e.beta, "+34611000001", "2026-12-01T10:00:00")
		acct, v, err := manage.Open(e.ctx, store, e.token(e.beta, theirs), e.now)
		if err != nil || acct.ID != e.beta.ID || v.Appointment.ID != theirs {
			t.Fatalf("beta's own link: %v %+v %v", acct, v, err)
		}
		if e.token(e.acct, mine) == e.token(e.beta, theirs) {
			t.Error("two accounts' appointments share a token")
		}
		forged, _, err := managelink.Issue(e.ctx, store, e.acct, theirs, e.now)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := manage.Open(e.ctx, store, forged, e.now); !errs.Is(err, errs.NotFound) {
			t.Errorf("open: %v", err)
		}
		if _, err := manage.Cancel(e.ctx, store, forged, "", e.now); !errs.Is(err, errs.NotFound) {
			t.Errorf("cancel: %v", err)
		}
		if s, _ := e.status(theirs); s != "booked" {
			t.Errorf("beta's appointment is %s", s)
		}
	})
}

// TestManageLinkInTexts: the confirmation request and the reminders end
// with the link line in the account's language.
func TestManageLinkInTexts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		for _, tc := range []struct{ lang, line, phone, start string }{
			{"es", "Confirmar, cancelar o cambiar: ", "+34611000010", "2026-12-01T10:00:00"},
			{"en", "Confirm, cancel or change: ", "+34611000011", "2026-12-01T11:00:00"},
		} {
			ws := &workspace.Applier{DB: store, Now: func() time.Time { return e.now }}
			if _, err := ws.Apply(e.ctx, []byte(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: `+tc.lang+`}`)); err != nil {
				t.Fatal(err)
			}
			id := e.book(e.acct, tc.phone, tc.start)
			link, _ := manage.URL(e.ctx, store, e.acct, id)
			bodies := e.strings(`SELECT body FROM outbox WHERE source_type = 'booking' AND source_id = ? ORDER BY id`, id)
			if len(bodies) != 3 {
				t.Fatalf("%s: %q", tc.lang, bodies)
			}
			for _, b := range bodies {
				if !strings.HasSuffix(b, "\n"+tc.line+link) {
					t.Errorf("%s: %q", tc.lang, b)
				}
			}
		}
	})
}
