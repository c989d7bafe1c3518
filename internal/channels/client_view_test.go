package channels_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const consentWorkspace = `
account: {slug: clinic, name: Clinic, timezone: Europe/Madrid, default_region: ES}
clients:
  - {key: ana, first_name: Ana, phone: "+34600000001"}
  - {key: bea, first_name: Bea, phone: "+34600000002"}
channels:
  - {key: sms, type: sms, provider: twilio, from: "+34910000001", credentials: {account_sid: ACx, auth_token: tok}}
  - {key: wa, type: whatsapp, provider: meta, from: "+34910000002", active: false,
     credentials: {phone_number_id: pn, access_token: at, app_secret: as, verify_token: vt}}
messaging: {default_channel: sms}
`

// TestClientConsent: the channels a client opted out of (or back in on),
// with their type; another client's record and another account's are not
// the client's.
func TestClientConsent(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }, Secrets: box}).Apply(context.Background(), []byte(consentWorkspace))
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		acct, err := account.BySlug(ctx, store, "clinic")
		if err != nil {
			t.Fatal(err)
		}
		ana, bea := res.IDs.Clients["ana"], res.IDs.Clients["bea"]
		id := map[string]int64{}
		list, err := channels.List(ctx, store, acct)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range list {
			id[ch.Key] = ch.ID
		}
		set := func(client int64, key string, out bool, at time.Time) {
			t.Helper()
			if err := store.Transact(ctx, func(tx *db.Tx) error {
				_, err := channels.SetConsent(ctx, tx, acct, client, id[key], out, at)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := channels.ClientConsent(ctx, store, acct, ana); err != nil || len(got) != 0 {
			t.Fatalf("before any opt-out: %+v, %v", got, err)
		}
		set(ana, "sms", true, now)
		set(ana, "wa", true, now.Add(time.Hour))
		set(ana, "wa", false, now.Add(2*time.Hour))
		set(bea, "sms", true, now)
		got, err := channels.ClientConsent(ctx, store, acct, ana)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ChannelKey != "sms" || !got[0].OptedOut || got[0].Type != "sms" || !got[0].Active ||
			got[1].ChannelKey != "wa" || got[1].OptedOut || got[1].Active || got[1].OptedInAt == nil || !got[1].OptedInAt.Equal(now.Add(2*time.Hour)) {
			t.Fatalf("consent = %+v", got)
		}
		if other, err := channels.ClientConsent(ctx, store, account.Account{ID: acct.ID + 1000}, ana); err != nil || len(other) != 0 {
			t.Fatalf("another account sees %+v (%v)", other, err)
		}
	})
}
