package manage_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/manage"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

var urlSafe = regexp.MustCompile(`^[A-Za-z0-9_-]{32}$`)

// TestManageToken: a link is the public URL, /m/ and a URL-safe token of
// 192 bits, the same at every call and in every message, different per
// appointment and per key, never stored, and it opens the appointment until
// seven days after its end.
func TestManageToken(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		first := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		second := e.book(e.acct, "+34611000002", "2026-12-01T11:00:00")
		link, err := manage.URL(e.ctx, store, e.acct, first)
		if err != nil {
			t.Fatal(err)
		}
		token := strings.TrimPrefix(link, publicURL+"/m/")
		if !strings.HasPrefix(link, publicURL+"/m/") || !urlSafe.MatchString(token) {
			t.Fatalf("link %q", link)
		}
		if again, _ := manage.URL(e.ctx, store, e.acct, first); again != link {
			t.Errorf("second call %q, first %q", again, link)
		}
		if other := e.token(e.acct, second); other == token {
			t.Error("two appointments share a token")
		}
		otherBox, _ := secrets.New([]byte("fedcba9876543210fedcba9876543210"))
		if t2, _ := managelink.Token(otherBox, e.acct.ID, first); t2 == token {
			t.Error("another key gives the same token")
		}
		// The confirmation request and both reminders carry this link.
		bodies := e.strings(`SELECT body FROM outbox WHERE source_type = 'booking' AND source_id = ? ORDER BY id`, first)
		if len(bodies) != 3 {
			t.Fatalf("messages %q", bodies)
		}
		for _, b := range bodies {
			if !strings.HasSuffix(b, link) {
				t.Errorf("message %q does not end with %s", b, link)
			}
		}
		// The database holds the digest only.
		stored := e.strings(`SELECT digest || ' ' || CAST(account_id AS TEXT) || ' ' || CAST(appointment_id AS TEXT) FROM manage_links`)
		if len(stored) != 2 {
			t.Fatalf("manage_links %q", stored)
		}
		for _, row := range stored {
			if strings.Contains(row, token) {
				t.Errorf("a stored row holds the token: %q", row)
			}
		}
		// No public URL or no key: no link.
		for name, cfg := range map[string]managelink.Config{"no url": {Secrets: e.box}, "no key": {PublicURL: publicURL}} {
			if l, err := manage.URL(managelink.WithConfig(context.Background(), cfg), store, e.acct, first); l != "" || err != nil {
				t.Errorf("%s: %q %v", name, l, err)
			}
		}
		// Open until seven days after the end, then 404; unknown and
		// malformed tokens are 404.
		end := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
		for _, tc := range []struct {
			name  string
			token string
			at    time.Time
			ok    bool
		}{
			{"now", token, e.now, true},
			{"last instant", token, end.Add(managelink.Lifetime - time.Microsecond), true},
			{"expired", token, end.Add(managelink.Lifetime), false},
			{"unknown", strings.Repeat("A", 32), e.now, false},
			{"one character off", token[:31] + flip(token[31]), e.now, false},
			{"malformed", "../etc", e.now, false},
			{"empty", "", e.now, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				acct, v, err := manage.Open(e.ctx, store, tc.token, tc.at)
				if tc.ok {
					if err != nil || acct.ID != e.acct.ID || v.Appointment.ID != first {
						t.Errorf("open: %v %+v %v", acct, v, err)
					}
					return
				}
				if !errs.Is(err, errs.NotFound) {
					t.Errorf("want NOT_FOUND, got %v", err)
				}
			})
		}
	})
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// TestManageView: the answer says the appointment, the client's first
// name only, and what may still be done.
func TestManageView(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		id := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		_, v, err := manage.Open(e.ctx, store, e.token(e.acct, id), e.now)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		a := v.Appointment
		if a.ID != id || !a.StartAt.Equal(start) || !a.EndAt.Equal(start.Add(30*time.Minute)) || a.Timezone != "Europe/Madrid" ||
			a.Status != "booked" || a.ConfirmationStatus != "pending" || a.Service.Name != "Limpieza dental" || a.Professional.Name != "Dr. López" ||
			v.Client.FirstName != "Eva" || !v.CanCancel || !v.CanReschedule || !v.CancelCutoffAt.Equal(start) {
			t.Errorf("view %+v", v)
		}
		// Once started: nothing may change.
		_, v, _ = manage.Open(e.ctx, store, e.token(e.acct, id), start)
		if v.CanCancel || v.CanReschedule {
			t.Errorf("started: %+v", v)
		}
	})
}

// TestManageRefusals: cancel and reschedule are CHANGE_NOT_ALLOWED once
// the appointment has started, after its cutoff, and once cancelled; a
// move goes only to a listed slot.
func TestManageRefusals(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		id := e.book(e.acct, "+34611000001", "2026-12-01T10:00:00")
		token := e.token(e.acct, id)
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		at := func(s string) calendar.WallTime { w, _ := calendar.ParseWallTime(s); return w }
		lopez := e.professional("Dr. López")
		other := lopez + 1000
		for _, tc := range []struct {
			name string
			do   func() error
			code string
		}{
			{"cancel at the start", func() error { _, err := manage.Cancel(e.ctx, store, token, "", start); return err }, errs.ChangeNotAllowed},
			{"move after the start", func() error {
				_, err := manage.Reschedule(e.ctx, store, token, at("2026-12-01T12:00:00"), nil, start.Add(time.Minute))
				return err
			}, errs.ChangeNotAllowed},
			{"slots after the start", func() error { _, err := manage.Slots(e.ctx, store, token, "", 7, start); return err }, errs.ChangeNotAllowed},
			{"move off the grid", func() error {
				_, err := manage.Reschedule(e.ctx, store, token, at("2026-12-01T12:07:00"), nil, e.now)
				return err
			}, errs.SlotNotAvailable},
			{"move outside working hours", func() error {
				_, err := manage.Reschedule(e.ctx, store, token, at("2026-12-01T20:00:00"), nil, e.now)
				return err
			}, errs.SlotNotAvailable},
			{"move to another's professional", func() error {
				_, err := manage.Reschedule(e.ctx, store, token, at("2026-12-01T12:00:00"), &other, e.now)
				return err
			}, errs.SlotNotAvailable},
			{"move into the past", func() error {
				_, err := manage.Reschedule(e.ctx, store, token, at("2026-11-30T08:00:00"), nil, e.now)
				return err
			}, errs.SlotNotAvailable},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if err := tc.do(); !errs.Is(err, tc.code) {
					t.Errorf("want %s, got %v", tc.code, err)
				}
				if s, _ := e.status(id); s != "booked" || len(e.events("appointment.cancelled", id))+len(e.events("appointment.rescheduled", id)) != 0 {
					t.Errorf("a refusal changed the appointment: %s", s)
				}
			})
		}
		// Cancelled: shown so, and nothing more may change.
		if _, err := manage.Cancel(e.ctx, store, token, "", e.now); err != nil {
			t.Fatal(err)
		}
		_, v, err := manage.Open(e.ctx, store, token, e.now)
		if err != nil || v.Appointment.Status != "cancelled" || v.CanCancel || v.CanReschedule {
			t.Errorf("cancelled view %+v %v", v, err)
		}
		for name, do := range map[string]func() error{
			"cancel again": func() error { _, err := manage.Cancel(e.ctx, store, token, "", e.now); return err },
			"move": func() error {
				_, err := manage.Reschedule(e.ctx, store, token, at("2026-12-01T12:00:00"), nil, e.now)
				return err
			},
			"confirm": func() error { _, err := manage.Confirm(e.ctx, store, token, e.now); return err },
		} {
			if err := do(); !errs.Is(err, errs.ChangeNotAllowed) {
				t.Errorf("%s after cancel: %v", name, err)
			}
		}
	})
}
