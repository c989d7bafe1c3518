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

// A worker with many sends under way hands each channel's provider at most
// its slots at once, and serves the other channels meanwhile: two Twilio
// channels (two accounts' providers, say) each see at most 3 requests at
// once while the worker has 12 sends under way, and every message is sent
// once.
func TestSendsPerChannelAreBounded(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		const per, each = 3, 12
		fakes := []*channelstest.Twilio{
			{SID: "AC1", Token: "twilio-token", Delay: 30 * time.Millisecond},
			{SID: "AC2", Token: "other-token", Delay: 30 * time.Millisecond},
		}
		chans := []channels.Channel{e.sms, {Key: "sms2", UUID: "7c1e2f3a-0000-4000-8000-000000000003", Type: channels.TypeSMS,
			Provider: channels.ProviderTwilio, From: "+34910000003", Active: true,
			Credentials: map[string]string{"account_sid": "AC2", "auth_token": "other-token"}}}
		err := store.Transact(ctx, func(tx *db.Tx) error {
			id, _, err := channels.Save(ctx, tx, e.box, e.acct, chans[1], "", testNow)
			chans[1].ID = id
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		both := &channelstest.InFlight{}
		for i, f := range fakes {
			srv := httptest.NewServer(both.Handler(f))
			defer srv.Close()
			if _, err := store.Exec(ctx, `UPDATE channels SET api_base = ? WHERE id = ?`, srv.URL, chans[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		err = store.Transact(ctx, func(tx *db.Tx) error {
			for i := range each {
				for c, ch := range chans {
					key := ch.Key
					if err := jobs.QueueMessage(ctx, tx, e.acct, testNow, jobs.Message{Kind: "booking_confirmation", Channel: "sms",
						Recipient: fmt.Sprintf("+346003%d%04d", c, i), Body: "Hola", ChannelKey: &key, Source: jobs.MessageSource{Type: "test"}}, testNow, nil); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		d := &relay.Deliverer{DB: store, Secrets: e.box, Clock: e.clock, Slots: &jobs.Slots{Per: per},
			Providers: &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}, Now: e.clock.Now}}
		fx := &jobs.Effects{Targets: outbound.Policy{AllowPrivate: true}, Clock: e.clock, Sender: relay.JobSender{Deliverer: d}}
		w := &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(), Concurrency: 4 * per}
		for range 2 {
			if _, err := w.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for i, f := range fakes {
			if n := len(f.Accepted()); n != each {
				t.Errorf("channel %s: %d messages accepted, want %d", chans[i].Key, n, each)
			}
			// At most per at once; and per reached, so the bound is what
			// held the sends back, not a lack of them.
			if peak := f.PeakInFlight(); peak != per {
				t.Errorf("channel %s: %d requests at once, want %d", chans[i].Key, peak, per)
			}
		}
		if peak := both.Peak(); peak <= per {
			t.Errorf("both providers together had %d requests at once: the channels were not served side by side", peak)
		}
		var sent int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND status = 'sent'`, e.acct.ID).Scan(&sent)
		if sent != 2*each {
			t.Errorf("%d messages sent, want %d", sent, 2*each)
		}
	})
}
