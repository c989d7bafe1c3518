package relay_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
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

// Through the worker, the opt-outs are read in the group commits that mark
// the sends' starts, for many messages at once: an opted-out client's
// message is suppressed and never reaches the provider, an opt-out of
// another channel does not count, and the answer to STOP still goes.
func TestOptOutsAtTheStartOfASend(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		// Each request takes a while, so that the sends overlap and their
		// starts share group commits.
		fake := &channelstest.Twilio{SID: "AC1", Token: "twilio-token", Delay: 20 * time.Millisecond}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		if _, err := store.Exec(ctx, `UPDATE channels SET api_base = ? WHERE id = ?`, srv.URL, e.sms.ID); err != nil {
			t.Fatal(err)
		}
		type patient struct {
			phone  string
			optOut *channels.Channel // opted out of this channel
			want   string            // the automation message's status
		}
		patients := []patient{
			{"+34600200001", nil, "sent"},
			{"+34600200002", &e.sms, "suppressed"},
			{"+34600200003", nil, "sent"},
			{"+34600200004", &e.sms, "suppressed"},
			{"+34600200005", &e.wa, "sent"},
			{"+34600200006", nil, "sent"},
		}
		key := e.sms.Key
		ids := map[string]int64{}
		err := store.Transact(ctx, func(tx *db.Tx) error {
			for i, p := range patients {
				var id int64
				if err := tx.QueryRow(ctx, `INSERT INTO clients (account_id, first_name, last_name, name_search, phone_cc, phone_national, email, email_norm, data, created_at, updated_at)
					VALUES (?, ?, 'Test', 'test', 34, ?, '', '', '{}', ?, ?) RETURNING id`, e.acct.ID, fmt.Sprint("P", i), p.phone[3:], db.Micros(testNow), db.Micros(testNow)).Scan(&id); err != nil {
					return err
				}
				ids[p.phone] = id
				if p.optOut != nil {
					if _, err := channels.SetConsent(ctx, tx, e.acct, id, p.optOut.ID, true, testNow); err != nil {
						return err
					}
				}
				msgs := []string{jobs.MsgAutomation}
				if p.optOut == &e.sms && i == 1 {
					msgs = append(msgs, relay.KindReply) // the acknowledgement of STOP
				}
				for _, kind := range msgs {
					if err := jobs.QueueMessage(ctx, tx, e.acct, testNow, jobs.Message{Kind: kind, Channel: "sms", Recipient: p.phone, ClientID: &id,
						Body: "Hola " + kind, ChannelKey: &key, Source: jobs.MessageSource{Type: "test"}}, testNow, nil); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		e.sendAll(t)
		var got []string
		for _, m := range fake.Accepted() {
			got = append(got, m.Form.Get("To")+" "+m.Form.Get("Body"))
		}
		slices.Sort(got)
		want := []string{
			"+34600200001 Hola automation_message", "+34600200002 Hola channel_reply", "+34600200003 Hola automation_message",
			"+34600200005 Hola automation_message", "+34600200006 Hola automation_message",
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Twilio got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, p := range patients {
			var status, reason string
			var started, provider *int64
			var providerID *string
			if err := store.QueryRow(ctx, `SELECT status, COALESCE(error, ''), send_started_at, channel_id, provider_message_id FROM outbox
				WHERE account_id = ? AND client_id = ? AND kind = ?`, e.acct.ID, ids[p.phone], jobs.MsgAutomation).Scan(&status, &reason, &started, &provider, &providerID); err != nil {
				t.Fatal(err)
			}
			switch {
			case status != p.want:
				t.Errorf("%s: %s (%s), want %s", p.phone, status, reason, p.want)
			case status == "suppressed" && (!strings.Contains(reason, "opted out") || started != nil):
				t.Errorf("%s: suppressed with %q, started %v", p.phone, reason, started)
			case status == "sent" && (started == nil || provider == nil || *provider != e.sms.ID || providerID == nil || !strings.HasPrefix(*providerID, "SM")):
				t.Errorf("%s: sent without its marks: started %v, channel %v, provider id %v", p.phone, started, provider, providerID)
			}
		}
	})
}

// sendAll runs three rounds of a job worker whose Sender delivers through
// e's channels.
func (e *env) sendAll(t *testing.T) {
	t.Helper()
	d := &relay.Deliverer{DB: e.store, Secrets: e.box, Clock: e.clock, Providers: &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}, Now: e.clock.Now}}
	fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: relay.JobSender{Deliverer: d}}
	w := &jobs.Worker{DB: e.store, Clock: e.clock, Handlers: fx.Handlers(), Calls: fx.Calls()}
	for range 3 {
		if _, err := w.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
