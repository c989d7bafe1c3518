package relay_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/relay"
)

// A message in doubt (an attempt was handed to a provider and its answer
// never recorded: a crash mid-call) is settled once by the relay: Twilio is
// asked and a message it has is recorded, not sent again; one it does not
// have is sent once; a question it cannot answer sends nothing and asks
// again later; Meta cannot be asked, so the message goes again, marked
// possible_duplicate; and nothing happens while the first call could still
// be under way.
func TestMessageInDoubt(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		// Twilio dates its messages by the wall clock: so does this test.
		e.clock.Set(time.Now())
		twilio := &channelstest.Twilio{SID: "AC1", Token: "twilio-token", QueuedFor: time.Hour}
		meta := &channelstest.Meta{PhoneID: "1234", Token: "EAA"}
		tw, mt := httptest.NewServer(twilio), httptest.NewServer(meta)
		defer tw.Close()
		defer mt.Close()
		store.Exec(ctx, `UPDATE channels SET api_base = ? WHERE id = ?`, tw.URL, e.sms.ID)
		store.Exec(ctx, `UPDATE channels SET api_base = ? WHERE id = ?`, mt.URL, e.wa.ID)
		d := &relay.Deliverer{DB: store, Secrets: e.box, Clock: e.clock, Providers: &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}}
		fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: relay.JobSender{Deliverer: d}}
		w := &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(),
			Backoff: func(int) time.Duration { return time.Second }}
		run := func() {
			t.Helper()
			for i := 0; i < 3; i++ {
				if _, err := w.RunOnce(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		type row struct {
			status, provider string
			possibleDup      bool
			inDoubt          bool
		}
		read := func(id int64) row {
			var r row
			var started *int64
			store.QueryRow(ctx, `SELECT status, COALESCE(provider_message_id, ''), possible_duplicate, send_started_at FROM outbox WHERE id = ?`, id).
				Scan(&r.status, &r.provider, &r.possibleDup, &started)
			r.inDoubt = started != nil
			return r
		}
		posts := func(to, body string, sent []channelstest.TwilioMessage) (n int) {
			for _, m := range sent {
				if m.Form.Get("To") == to && m.Form.Get("Body") == body {
					n++
				}
			}
			return n
		}
		metaPosts := func(to, body string) (n int) {
			for _, m := range meta.Sent() {
				if txt, _ := m["text"].(map[string]any); m["to"] == to && txt["body"] == body {
					n++
				}
			}
			return n
		}
		for i, test := range []struct {
			name      string
			route     string        // the account's default channel now
			through   string        // the channel the cut-off attempt used
			ago       time.Duration // since the cut-off attempt started
			reached   bool          // the cut-off attempt reached Twilio
			outage    bool          // Twilio's list answers 503 at first
			wantPosts int           // requests to send it, in all
			wantDup   bool
		}{
			{name: "Twilio has it", route: "sms", through: "sms", ago: time.Minute, reached: true, wantPosts: 1},
			{name: "Twilio has not", route: "sms", through: "sms", ago: time.Minute, wantPosts: 1},
			{name: "Twilio cannot answer yet", route: "sms", through: "sms", ago: time.Minute, reached: true, outage: true, wantPosts: 1},
			{name: "the route moved to Meta since", route: "wa", through: "sms", ago: time.Minute, reached: true, wantPosts: 1},
			{name: "Meta cannot be asked", route: "wa", through: "wa", ago: time.Minute, wantPosts: 1, wantDup: true},
		} {
			t.Run(test.name, func(t *testing.T) {
				to, body := fmt.Sprintf("+3460011%04d", i), fmt.Sprintf("Recordatorio %d", i)
				store.Exec(ctx, `UPDATE accounts SET messaging = ? WHERE id = ?`, `{"default_channel":"`+test.route+`"}`, e.acct.ID)
				var id int64
				store.Transact(ctx, func(tx *db.Tx) error {
					if err := jobs.QueueMessage(ctx, tx, e.acct, e.clock.Now(), jobs.Message{Kind: jobs.MsgReminder, Channel: "sms", Recipient: to, Body: body,
						Source: jobs.MessageSource{Type: "test"}}, e.clock.Now(), nil); err != nil {
						return err
					}
					return tx.QueryRow(ctx, `SELECT MAX(id) FROM outbox`).Scan(&id)
				})
				// The cut-off attempt: marked as started, maybe received by
				// Twilio, its answer lost.
				ch := map[string]channels.Channel{"sms": e.sms, "wa": e.wa}[test.through]
				started := e.clock.Now().Add(-test.ago)
				store.Exec(ctx, `UPDATE outbox SET send_started_at = ?, channel_id = ? WHERE id = ?`, db.Micros(started), ch.ID, id)
				var sid string
				if test.reached {
					ch.APIBase = tw.URL
					res, err := (&channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}).Send(ctx, ch, channels.Outgoing{To: to, Body: body})
					if err != nil {
						t.Fatal(err)
					}
					sid = res.ProviderID
				}
				twilio.ListStatus = 0
				if test.outage {
					twilio.ListStatus = 503
					run()
					if r := read(id); r.status != "pending" || !r.inDoubt || posts(to, body, twilio.Accepted()) != 1 {
						t.Fatalf("during the outage: %+v and %d requests, want it pending, in doubt, not sent again", r, posts(to, body, twilio.Accepted()))
					}
					twilio.ListStatus = 0
					e.clock.Advance(2 * time.Second)
				}
				run()
				r := read(id)
				n := posts(to, body, twilio.Accepted()) + metaPosts(to[1:], body)
				if r.status != "sent" || n != test.wantPosts || r.possibleDup != test.wantDup {
					t.Fatalf("outbox %+v after %d requests to send it; want sent after %d, possible_duplicate %v", r, n, test.wantPosts, test.wantDup)
				}
				if test.reached && r.provider != sid {
					t.Errorf("recorded provider id %q, want Twilio's %q", r.provider, sid)
				}
			})
		}

		// Within the send timeout of the cut-off attempt, the call may still
		// be under way in a worker that only looked dead: nothing is asked
		// or sent until it has surely ended.
		store.Exec(ctx, `UPDATE accounts SET messaging = '{"default_channel":"wa"}' WHERE id = ?`, e.acct.ID)
		var id int64
		store.Transact(ctx, func(tx *db.Tx) error {
			jobs.QueueMessage(ctx, tx, e.acct, e.clock.Now(), jobs.Message{Kind: jobs.MsgReminder, Channel: "whatsapp", Recipient: "+34600119999",
				Body: "Pronto", Source: jobs.MessageSource{Type: "test"}}, e.clock.Now(), nil)
			return tx.QueryRow(ctx, `SELECT MAX(id) FROM outbox`).Scan(&id)
		})
		store.Exec(ctx, `UPDATE outbox SET send_started_at = ?, channel_id = ? WHERE id = ?`, db.Micros(e.clock.Now().Add(-5*time.Second)), e.wa.ID, id)
		run()
		if r := read(id); r.status != "pending" || metaPosts("34600119999", "Pronto") != 0 {
			t.Fatalf("a message whose call may still be under way: %+v, %d requests", r, metaPosts("34600119999", "Pronto"))
		}
		e.clock.Advance(15 * time.Second)
		run()
		if r := read(id); r.status != "sent" || !r.possibleDup || metaPosts("34600119999", "Pronto") != 1 {
			t.Fatalf("after the send timeout: %+v, %d requests", r, metaPosts("34600119999", "Pronto"))
		}
	})
}
