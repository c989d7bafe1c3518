package relay_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/relay"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// bookAt books the acme cleaning with Dr López for a client's number at
// start (UTC wall time), with the notifications of acme.yaml: a
// confirmation request and reminders 24 h and 2 h before.
func bookAt(t *testing.T, e *env, number string, start time.Time) int64 {
	t.Helper()
	s, _ := calendar.ParseWallTime(start.UTC().Format("2006-01-02T15:04:05Z"))
	end, _ := calendar.ParseWallTime(start.Add(30 * time.Minute).UTC().Format("2006-01-02T15:04:05Z"))
	svc, ev := "Limpieza dental", "In person"
	var proID int64
	e.store.QueryRow(context.Background(), `SELECT id FROM professionals WHERE account_id = ? ORDER BY id LIMIT 1`, e.acct.ID).Scan(&proID)
	b, err := calendar.Book(context.Background(), e.store, e.acct, calendar.BookRequest{
		Client: calendar.ClientInput{FirstName: "Paciente", Phone: number}, ServiceName: &svc, ProfessionalID: &proID, EventTypeName: &ev,
		StartAt: s, EndAt: end, Timezone: "Europe/Madrid"}, e.clock.Now())
	if err != nil {
		t.Fatalf("book: %v", err)
	}
	return b.Appointment.ID
}

func mustPhone(t *testing.T, s string) phone.Number {
	t.Helper()
	n, err := phone.ParseWithRegion(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// markRequestSent marks an appointment's confirmation request as sent at.
func markRequestSent(t *testing.T, e *env, appointmentID int64, at time.Time) {
	t.Helper()
	if _, err := e.store.Exec(context.Background(), `UPDATE outbox SET status = 'sent', sent_at = ? WHERE account_id = ? AND kind = 'booking_confirmation'
		AND source_type = 'booking' AND source_id = ?`, db.Micros(at), e.acct.ID, appointmentID); err != nil {
		t.Fatal(err)
	}
}

func confirmationOf(t *testing.T, e *env, id int64) string {
	t.Helper()
	var s string
	if err := e.store.QueryRow(context.Background(), `SELECT confirmation_status FROM appointments WHERE id = ?`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// reminders lists the statuses of an appointment's reminders.
func reminders(t *testing.T, e *env, id int64) string {
	t.Helper()
	rows, err := e.store.Query(context.Background(), `SELECT o.status, j.status FROM outbox o JOIN jobs j ON j.account_id = o.account_id AND j.outbox_id = o.id
		WHERE o.account_id = ? AND o.kind = 'booking_reminder' AND o.source_id = ? ORDER BY o.id`, e.acct.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o, j string
		rows.Scan(&o, &j)
		out = append(out, o+"/"+j)
	}
	return strings.Join(out, " ")
}

func eventsFor(t *testing.T, e *env, id int64) int {
	t.Helper()
	var n int
	e.store.QueryRow(context.Background(), `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND kind = 'webhook'
		AND source_type = 'event:appointment.confirmation_changed' AND source_id = ?`, e.acct.ID, id).Scan(&n)
	return n
}

func TestConfirmationReplies(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		e.hooks.Replies = []relay.ReplyHandler{relay.ConfirmationReplies(e.hooks.Answer)}
		ws := &workspace.Applier{DB: store, Now: e.clock.Now, Targets: outbound.Policy{AllowPrivate: true}}
		if _, err := ws.Apply(ctx, []byte(`account: {slug: acme}
webhooks: [{key: conf, url: "https://example.test/conf", events: [appointment.confirmation_changed]}]`)); err != nil {
			t.Fatal(err)
		}
		path := "/hooks/twilio/" + twilioUUID + "/inbound"
		sid := 0
		send := func(from, body string) {
			t.Helper()
			sid++
			form := url.Values{"MessageSid": {fmt.Sprintf("SMconf%06d", sid)},
				"From": {from}, "To": {"+34910000001"}, "Body": {body}, "NumMedia": {"0"}}
			u, sig := signedTwilio(path, form)
			if err := e.hooks.TwilioInbound(ctx, twilioUUID, u, form, sig); err != nil {
				t.Fatal(err)
			}
		}
		now := e.clock.Now()
		start := now.Add(72 * time.Hour).Truncate(time.Hour)

		t.Run("no request", func(t *testing.T) {
			const num = "+34600000101"
			id := bookAt(t, e, num, start)
			before := len(e.answers)
			send(num, "sí") // the request is queued but not sent yet
			if confirmationOf(t, e, id) != "pending" || len(e.answers) != before || eventsFor(t, e, id) != 0 {
				t.Fatalf("a reply with no request sent acted: %s, answers %v", confirmationOf(t, e, id), e.answers[before:])
			}
		})

		t.Run("72 hour window", func(t *testing.T) {
			const num = "+34600000102"
			id := bookAt(t, e, num, start.Add(time.Hour))
			markRequestSent(t, e, id, now.Add(-73*time.Hour))
			before := len(e.answers)
			send(num, "1")
			if confirmationOf(t, e, id) != "pending" || len(e.answers) != before {
				t.Fatalf("a reply 73 h after the request acted: %s", confirmationOf(t, e, id))
			}
			markRequestSent(t, e, id, now.Add(-71*time.Hour))
			send(num, "1")
			if confirmationOf(t, e, id) != "confirmed" || len(e.answers) != before+1 || !strings.Contains(e.answers[before], "confirmada") {
				t.Fatalf("a reply 71 h after the request: %s, answers %v", confirmationOf(t, e, id), e.answers[before:])
			}
			if eventsFor(t, e, id) != 1 {
				t.Errorf("confirmation_changed events: %d, want 1", eventsFor(t, e, id))
			}
			// "ok" after "1" repeats the answer: a chat message, no event, no answer.
			send(num, "OK!")
			if confirmationOf(t, e, id) != "confirmed" || len(e.answers) != before+1 || eventsFor(t, e, id) != 1 {
				t.Errorf("a repeated yes acted: answers %v, events %d", e.answers[before:], eventsFor(t, e, id))
			}
		})

		t.Run("newest request wins, latest word revises", func(t *testing.T) {
			const num = "+34600000103"
			older := bookAt(t, e, num, start.Add(2*time.Hour))
			newer := bookAt(t, e, num, start.Add(3*time.Hour))
			markRequestSent(t, e, older, now.Add(-2*time.Hour))
			markRequestSent(t, e, newer, now.Add(-time.Hour))
			before := len(e.answers)
			send(num, "No")
			if confirmationOf(t, e, newer) != "declined" || confirmationOf(t, e, older) != "pending" {
				t.Fatalf("after no: newer %s, older %s", confirmationOf(t, e, newer), confirmationOf(t, e, older))
			}
			if !strings.Contains(e.answers[before], "no podrás venir") {
				t.Errorf("decline answer %q", e.answers[before])
			}
			if got := reminders(t, e, newer); got != "cancelled/done cancelled/done" {
				t.Errorf("declined appointment's reminders: %s", got)
			}
			var reason string
			store.QueryRow(ctx, `SELECT error FROM outbox WHERE kind = 'booking_reminder' AND source_id = ? LIMIT 1`, newer).Scan(&reason)
			if reason != jobs.ReasonDeclined {
				t.Errorf("cancelled reminder's reason %q", reason)
			}
			if got := reminders(t, e, older); got != "pending/pending pending/pending" {
				t.Errorf("the other appointment's reminders: %s", got)
			}
			// The next yes goes to the request still waiting for an answer.
			send(num, "confirmo")
			if confirmationOf(t, e, older) != "confirmed" || confirmationOf(t, e, newer) != "declined" {
				t.Fatalf("after confirmo: newer %s, older %s", confirmationOf(t, e, newer), confirmationOf(t, e, older))
			}
			// With both answered, the patient's latest word revises the newest.
			send(num, "sí")
			if confirmationOf(t, e, newer) != "confirmed" || confirmationOf(t, e, older) != "confirmed" {
				t.Fatalf("after sí: newer %s, older %s", confirmationOf(t, e, newer), confirmationOf(t, e, older))
			}
			if got := reminders(t, e, newer); got != "pending/pending pending/pending" {
				t.Errorf("reminders after confirming a declined appointment: %s", got)
			}
			if eventsFor(t, e, newer) != 2 || eventsFor(t, e, older) != 1 || len(e.answers) != before+3 {
				t.Errorf("events newer %d older %d, answers %v", eventsFor(t, e, newer), eventsFor(t, e, older), e.answers[before:])
			}
			var body string
			store.QueryRow(ctx, `SELECT body FROM outbox WHERE source_type = 'event:appointment.confirmation_changed' AND source_id = ? ORDER BY id DESC LIMIT 1`, newer).Scan(&body)
			if !strings.Contains(body, `"confirmation_status":"confirmed"`) || !strings.Contains(body, `"previous_confirmation_status":"declined"`) ||
				!strings.Contains(body, `"calendar_profile_id"`) {
				t.Errorf("event body %s", body)
			}
		})

		t.Run("other account", func(t *testing.T) {
			const num = "+34600000104"
			id := bookAt(t, e, num, start.Add(4*time.Hour))
			markRequestSent(t, e, id, now.Add(-time.Hour))
			if _, _, ok, err := calendar.ConfirmationRequestFor(ctx, store, e.other, num, now); ok || err != nil {
				t.Fatalf("the other account found acme's request: %v %v", ok, err)
			}
			var handled bool
			err := store.Transact(ctx, func(tx *db.Tx) error {
				var err error
				handled, err = relay.ConfirmationReplies(nil)(ctx, tx, relay.Reply{Account: e.other, Phone: mustPhone(t, num), Intent: channels.IntentYes}, now)
				return err
			})
			if err != nil || handled || confirmationOf(t, e, id) != "pending" {
				t.Fatalf("another account's reply: handled %v, %v, %s", handled, err, confirmationOf(t, e, id))
			}
		})

		t.Run("cancelled appointment", func(t *testing.T) {
			const num = "+34600000105"
			id := bookAt(t, e, num, start.Add(5*time.Hour))
			markRequestSent(t, e, id, now.Add(-time.Hour))
			store.Exec(ctx, `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, id)
			before := len(e.answers)
			send(num, "yes")
			if confirmationOf(t, e, id) != "pending" || len(e.answers) != before {
				t.Fatalf("a cancelled appointment was confirmed")
			}
		})
	})
}

// countingSender records what reaches the channel. The worker sends in
// parallel, so the record is kept under a lock.
type countingSender struct {
	mu    sync.Mutex
	kinds []string
}

func (s *countingSender) sent() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.kinds, " ")
}

func (s *countingSender) Send(ctx context.Context, _ account.Account, m jobs.Message, start jobs.Start) (jobs.SendResult, error) {
	if err := start(ctx, 0, false); err != nil {
		return jobs.SendResult{}, err
	}
	s.mu.Lock()
	s.kinds = append(s.kinds, m.Kind)
	s.mu.Unlock()
	return jobs.SendResult{Status: jobs.DeliverySent}, nil
}

// TestReminderDeliveryRechecks: a reminder that was already due (or
// claimed) when its appointment was declined or cancelled is not sent.
func TestReminderDeliveryRechecks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		start := e.clock.Now().Add(72 * time.Hour).Truncate(time.Hour)
		declined := bookAt(t, e, "+34600000201", start)
		cancelled := bookAt(t, e, "+34600000202", start.Add(time.Hour))
		kept := bookAt(t, e, "+34600000203", start.Add(2*time.Hour))
		// Changed behind the use cases' back, as if the reminders had been
		// claimed by a worker before the change committed.
		store.Exec(ctx, `UPDATE appointments SET confirmation_status = 'declined' WHERE id = ?`, declined)
		store.Exec(ctx, `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, cancelled)
		e.clock.Set(start.Add(-time.Hour)) // every reminder of the first two is due
		sender := &countingSender{}
		fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: sender}
		w := &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), Calls: fx.Calls()}
		for i := 0; i < 5; i++ {
			if n, err := w.RunOnce(ctx); err != nil {
				t.Fatal(err)
			} else if n == 0 {
				break
			}
		}
		sent := sender.sent()
		if strings.Count(sent, "booking_reminder") != 1 || strings.Count(sent, "booking_confirmation") != 3 {
			t.Errorf("sent: %s", sent)
		}
		for id, want := range map[int64]string{declined: jobs.ReasonDeclined, cancelled: jobs.ReasonCancelled} {
			var n int
			store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'booking_reminder' AND source_id = ? AND status = 'cancelled' AND error = ?`, id, want).Scan(&n)
			if n != 2 {
				t.Errorf("appointment %d: %d reminders cancelled with %q; %s", id, n, want, reminders(t, e, id))
			}
		}
		if got := reminders(t, e, kept); got != "sent/done pending/pending" {
			t.Errorf("the kept appointment's reminders: %s", got)
		}
	})
}
