package relay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/relay"
)

// The Deliverer's decisions before any provider is called: routes, the
// default channel, inactive channels, consent, missing addresses and quiet
// hours (21:00-09:00 in Madrid).
func TestDeliverDecisions(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		logCh := channels.Channel{Key: "log", Type: channels.TypeLog, Provider: channels.ProviderLog, Active: true}
		off := channels.Channel{Key: "off", Type: channels.TypeLog, Provider: channels.ProviderLog, Active: false}
		mail := channels.Channel{Key: "mail", Type: channels.TypeEmail, Provider: channels.ProviderLog, From: "citas@acme.test", Active: true}
		store.Transact(ctx, func(tx *db.Tx) error {
			for _, ch := range []channels.Channel{logCh, off, mail} {
				if _, _, err := channels.Save(ctx, tx, e.box, e.acct, ch, "00000000-0000-4000-8000-0000000000"+map[string]string{"log": "a1", "off": "a2", "mail": "a3"}[ch.Key], testNow); err != nil {
					t.Fatal(err)
				}
			}
			return nil
		})
		var maria, noMail int64
		store.QueryRow(ctx, `SELECT id FROM clients WHERE account_id = ? AND phone_national = '600111222'`, e.acct.ID).Scan(&maria)
		store.QueryRow(ctx, `INSERT INTO clients (account_id, first_name, last_name, name_search, phone_cc, phone_national, email, email_norm, data, created_at, updated_at)
			VALUES (?, 'Sin', 'Correo', 'sin correo', 34, '600999000', '', '', '{}', ?, ?) RETURNING id`, e.acct.ID, db.Micros(testNow), db.Micros(testNow)).Scan(&noMail)
		setMessaging := func(js string) {
			if _, err := store.Exec(ctx, `UPDATE accounts SET messaging = ? WHERE id = ?`, js, e.acct.ID); err != nil {
				t.Fatal(err)
			}
		}
		d := &relay.Deliverer{DB: store, Secrets: e.box, Clock: e.clock, Providers: &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}, Now: e.clock.Now}}
		madrid, _ := time.LoadLocation("Europe/Madrid")
		for _, test := range []struct {
			name      string
			messaging string
			kind      string
			client    int64
			at        time.Time // Madrid wall clock
			optOut    bool
			want      string
			wantKey   string
			reason    string
		}{
			{"no channel at all", `{}`, "booking_confirmation", maria, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), false, relay.StatusSuppressed, "", "no channel"},
			{"default channel", `{"default_channel":"log"}`, "booking_confirmation", maria, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), false, relay.StatusSent, "log", ""},
			{"a route wins", `{"default_channel":"log","routes":{"seat_offer":"mail"}}`, "seat_offer", maria, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), false, relay.StatusSent, "mail", ""},
			{"inactive channel", `{"default_channel":"off"}`, "booking_confirmation", maria, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), false, relay.StatusSuppressed, "off", "inactive"},
			{"e-mail without an address", `{"default_channel":"mail"}`, "booking_confirmation", noMail, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), false, relay.StatusSuppressed, "mail", "no recipient"},
			{"opted out", `{"default_channel":"log"}`, "automation_message", maria, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), true, relay.StatusSuppressed, "log", "opted out"},
			{"the opt-out answer still goes", `{"default_channel":"log"}`, relay.KindReply, maria, time.Date(2026, 11, 25, 12, 0, 0, 0, madrid), true, relay.StatusSent, "log", ""},
			{"quiet hours hold an automation", `{"default_channel":"log","quiet_hours":"21:00-09:00"}`, "automation_message", maria, time.Date(2026, 11, 25, 22, 30, 0, 0, madrid), false, relay.StatusDeferred, "log", ""},
			{"quiet hours hold a seat offer", `{"default_channel":"log","quiet_hours":"21:00-09:00"}`, "seat_offer", maria, time.Date(2026, 11, 25, 22, 30, 0, 0, madrid), false, relay.StatusDeferred, "log", ""},
			{"quiet hours never hold a confirmation", `{"default_channel":"log","quiet_hours":"21:00-09:00"}`, "booking_confirmation", maria, time.Date(2026, 11, 25, 22, 30, 0, 0, madrid), false, relay.StatusSent, "log", ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				setMessaging(test.messaging)
				e.clock.Set(test.at)
				store.Exec(ctx, `DELETE FROM channel_consents WHERE account_id = ?`, e.acct.ID)
				if test.optOut {
					var logID int64
					store.QueryRow(ctx, `SELECT id FROM channels WHERE account_id = ? AND file_key = 'log'`, e.acct.ID).Scan(&logID)
					store.Transact(ctx, func(tx *db.Tx) error {
						_, err := channels.SetConsent(ctx, tx, e.acct, maria, logID, true, testNow)
						return err
					})
				}
				client := test.client
				out, err := d.Deliver(ctx, e.acct, relay.Message{Kind: test.kind, Recipient: "+34600111222", ClientID: &client, Body: "Hola"})
				if err != nil {
					t.Fatal(err)
				}
				if out.Status != test.want || out.ChannelKey != test.wantKey || !strings.Contains(out.Reason, test.reason) {
					t.Fatalf("outcome %+v, want %s on %q (%q)", out, test.want, test.wantKey, test.reason)
				}
				if out.Status == relay.StatusDeferred && !out.Until.Equal(time.Date(2026, 11, 26, 9, 0, 0, 0, madrid)) {
					t.Errorf("deferred until %v, want 09:00 Madrid", out.Until)
				}
				if out.Status == relay.StatusSent && !strings.HasPrefix(out.ProviderID, "log-") {
					t.Errorf("provider id %q", out.ProviderID)
				}
			})
		}
	})
}
