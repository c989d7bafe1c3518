package relay_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/relay"
)

// A team reply goes out through the conversation's Twilio channel by the
// job worker: the provider gets it once, the conversation keeps the one
// `user` message (now carrying the provider's id) and gains no
// business_app copy; the same nonce again sends nothing; a client who opts
// out before the worker runs is not written to.
func TestTeamReplyDelivery(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		fake := &channelstest.Twilio{SID: "AC1", Token: "twilio-token"}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		if _, err := store.Exec(ctx, `UPDATE channels SET api_base = ? WHERE id = ?`, srv.URL, e.sms.ID); err != nil {
			t.Fatal(err)
		}
		var ana, maria int64
		store.QueryRow(ctx, `SELECT id FROM users WHERE account_id = ? AND file_key = 'ana'`, e.acct.ID).Scan(&ana)
		store.QueryRow(ctx, `SELECT id FROM clients WHERE account_id = ? AND phone_national = '600111222'`, e.acct.ID).Scan(&maria)
		var conv int64
		store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			conv, _, _, err = chat.RecordChannelMessage(ctx, tx, e.acct, chat.ChannelMessage{ChannelID: e.sms.ID, Phone: "+34600111222",
				PhoneNational: "600111222", Inbound: true, Content: "¿Hay cita?", At: testNow}, testNow)
			return err
		})
		worker := func() {
			t.Helper()
			d := &relay.Deliverer{DB: store, Secrets: e.box, Clock: e.clock, Providers: &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}, Now: e.clock.Now}}
			fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: relay.JobSender{Deliverer: d}}
			w := &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), Calls: fx.Calls()}
			for i := 0; i < 5; i++ {
				if n, err := w.RunOnce(ctx); err != nil {
					t.Fatal(err)
				} else if n == 0 {
					return
				}
			}
		}
		count := func(where string, args ...any) int {
			var n int
			if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM `+where, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}

		e.clock.Set(testNow.Add(time.Minute))
		res, err := relay.SendReply(ctx, store, e.acct, relay.TeamReply{SessionID: conv, UserID: ana, Body: "Sí, mañana a las 10.", Nonce: "form-1"}, e.clock.Now())
		if err != nil || res.Repeat || res.MessageID == 0 {
			t.Fatalf("reply: %+v %v", res, err)
		}
		again, err := relay.SendReply(ctx, store, e.acct, relay.TeamReply{SessionID: conv, UserID: ana, Body: "Sí, mañana a las 10.", Nonce: "form-1"}, e.clock.Now())
		if err != nil || !again.Repeat || again.MessageID != res.MessageID {
			t.Fatalf("repeat: %+v %v", again, err)
		}
		worker()
		got := fake.Accepted()
		if len(got) != 1 || got[0].Form.Get("Body") != "Sí, mañana a las 10." || got[0].Form.Get("To") != "+34600111222" || got[0].Form.Get("From") != "+34910000001" {
			t.Fatalf("Twilio got %+v", got)
		}
		if n := count(`messages WHERE conversation_id = ? AND sender_kind = 'user' AND user_id = ? AND provider_message_id = ? AND channel_id = ?`,
			conv, ana, got[0].SID, e.sms.ID); n != 1 {
			t.Errorf("the reply does not carry the provider's id (%d)", n)
		}
		if n := count(`messages WHERE conversation_id = ? AND sender_kind = 'business_app'`, conv); n != 0 {
			t.Errorf("the reply was recorded again as %d business_app message(s)", n)
		}
		if n := count(`outbox WHERE kind = 'team_reply' AND status = 'sent' AND provider_message_id = ?`, got[0].SID); n != 1 {
			t.Errorf("outbox not sent")
		}

		// Two replies delivered by one batch of the worker: each keeps its
		// one message, which gains its own provider id.
		for i, body := range []string{"Le espero.", "Traiga su tarjeta."} {
			if _, err := relay.SendReply(ctx, store, e.acct, relay.TeamReply{SessionID: conv, UserID: ana, Body: body, Nonce: "batch-" + body}, e.clock.Now()); err != nil {
				t.Fatal(i, err)
			}
		}
		worker()
		if got := fake.Accepted(); len(got) != 3 {
			t.Fatalf("Twilio got %d messages, want 3", len(got))
		}
		if n := count(`messages WHERE conversation_id = ? AND sender_kind = 'user' AND provider_message_id IS NOT NULL`, conv); n != 3 {
			t.Errorf("user messages with a provider id: %d, want 3", n)
		}
		if n := count(`messages WHERE conversation_id = ? AND sender_kind = 'business_app'`, conv); n != 0 {
			t.Errorf("the batch recorded %d business_app copies", n)
		}

		// Opted out after the reply was queued: the worker suppresses it.
		if _, err := relay.SendReply(ctx, store, e.acct, relay.TeamReply{SessionID: conv, UserID: ana, Body: "¿Sigue en pie?", Nonce: "form-2"}, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		store.Transact(ctx, func(tx *db.Tx) error {
			_, err := channels.SetConsent(ctx, tx, e.acct, maria, e.sms.ID, true, e.clock.Now())
			return err
		})
		worker()
		if len(fake.Accepted()) != 3 {
			t.Errorf("a reply reached an opted-out client")
		}
		if n := count(`outbox WHERE kind = 'team_reply' AND status = 'suppressed'`); n != 1 {
			t.Errorf("suppressed replies: %d", n)
		}
		// And now the reply box refuses before anything is stored.
		_, err = relay.SendReply(ctx, store, e.acct, relay.TeamReply{SessionID: conv, UserID: ana, Body: "Hola", Nonce: "form-3"}, e.clock.Now())
		if relay.ReplyReason(err) != relay.ReasonOptedOut {
			t.Errorf("opted out: %v", err)
		}
		// Another account's conversation is unknown.
		_, err = relay.SendReply(ctx, store, e.other, relay.TeamReply{SessionID: conv, UserID: ana, Body: "Hola", Nonce: "form-4"}, e.clock.Now())
		if !isNotFound(err) {
			t.Errorf("other account: %v", err)
		}
		if n := count(`messages WHERE conversation_id = ? AND sender_kind = 'user'`, conv); n != 4 {
			t.Errorf("user messages = %d, want 4", n)
		}
	})
}

func isNotFound(err error) bool { return errs.Is(err, errs.NotFound) }

// Five submissions of one form at the same moment (a nervous double
// click, a proxy's retry) store and queue the reply once.
func TestTeamReplyConcurrentSubmissions(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		var ana, conv int64
		store.QueryRow(ctx, `SELECT id FROM users WHERE account_id = ? AND file_key = 'ana'`, e.acct.ID).Scan(&ana)
		store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			conv, _, _, err = chat.RecordChannelMessage(ctx, tx, e.acct, chat.ChannelMessage{ChannelID: e.sms.ID, Phone: "+34600111222",
				PhoneNational: "600111222", Inbound: true, Content: "¿Hay cita?", At: testNow}, testNow)
			return err
		})
		type result struct {
			res relay.ReplyResult
			err error
		}
		out := make(chan result, 5)
		for range 5 {
			go func() {
				res, err := relay.SendReply(ctx, store, e.acct, relay.TeamReply{SessionID: conv, UserID: ana, Body: "Sí.", Nonce: "same-form"}, testNow)
				out <- result{res, err}
			}()
		}
		first := 0
		for range 5 {
			r := <-out
			switch {
			case r.err == nil && !r.res.Repeat:
				first++
			case r.err == nil, relay.ReplyReason(r.err) == relay.ReasonAlreadyRunning:
			default:
				t.Errorf("submission: %v", r.err)
			}
		}
		var msgs, queued int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND sender_kind = 'user'`, conv).Scan(&msgs)
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'team_reply'`).Scan(&queued)
		if first != 1 || msgs != 1 || queued != 1 {
			t.Errorf("first sends %d, messages %d, queued %d; want 1 each", first, msgs, queued)
		}
	})
}
