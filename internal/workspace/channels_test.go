package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const channelsFile = `account: {slug: acme, name: Acme, timezone: Europe/Madrid, default_region: ES, language: en}
channels:
  - key: sms
    type: sms
    provider: twilio
    from: "+34910000001"
    api_base: "http://127.0.0.1:9"
    credentials: {account_sid: AC1, auth_token: {env: ACME_TWILIO_TOKEN}}
  - {key: wa, type: whatsapp, provider: meta, from: "+34910000002", uuid: "2B7D6C52-5A52-4C1E-9A57-6F4A0F1F3A02",
     credentials: {phone_number_id: "1234", access_token: {env: ACME_WA_TOKEN}, app_secret: sec, verify_token: v3rify},
     templates: {booking_confirmation: {name: cita_confirmar, language: es}}}
  - {key: log, type: log, provider: log}
messaging: {default_channel: sms, routes: {seat_offer: wa}, quiet_hours: "21:00-09:00"}
`

func channelEnv(k string) string {
	return map[string]string{"ACME_TWILIO_TOKEN": "twilio-tok-1", "ACME_WA_TOKEN": "wa-tok-1"}[k]
}

func TestChannelsInWorkspace(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
		box := testBox(t)
		ap := &workspace.Applier{DB: store, Now: func() time.Time { return now }, Secrets: box, Getenv: channelEnv, Targets: outbound.Policy{AllowPrivate: true}}
		res, err := ap.Apply(ctx, []byte(channelsFile))
		if err != nil {
			t.Fatal(err)
		}
		if res.IDs.Channels["wa"] != "2b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a02" || len(res.IDs.Channels["sms"]) != 36 {
			t.Errorf("ids.channels = %v", res.IDs.Channels)
		}
		if out, _ := json.Marshal(res); strings.Contains(string(out), "twilio-tok-1") {
			t.Fatalf("apply output shows a credential: %s", out)
		}
		var raw string
		store.QueryRow(ctx, `SELECT credentials FROM channels WHERE file_key = 'sms'`).Scan(&raw)
		if strings.Contains(raw, "twilio-tok-1") || !secrets.IsSealed(raw) {
			t.Fatalf("stored credentials %q", raw)
		}
		acct, _ := account.BySlug(ctx, store, "acme")
		sms, err := channels.ByKey(ctx, store, box, acct, "sms")
		if err != nil || sms.Credentials["auth_token"] != "twilio-tok-1" || sms.Credentials["account_sid"] != "AC1" {
			t.Fatalf("sms = %+v, %v", sms, err)
		}
		settings, _ := channels.LoadSettings(ctx, store, acct)
		if settings.Language != "en" || settings.ChannelFor("seat_offer") != "wa" || settings.ChannelFor("booking_reminder") != "sms" || settings.QuietHours != "21:00-09:00" {
			t.Errorf("settings = %+v", settings)
		}

		// Applying the same file again writes nothing.
		before := snapshot(t, store)
		if _, err := ap.Apply(ctx, []byte(channelsFile)); err != nil {
			t.Fatal(err)
		}
		if after := snapshot(t, store); after != before {
			t.Errorf("a repeated apply changed the store:\n%s\n---\n%s", before, after)
		}

		// A partial file changes what it gives and keeps the rest.
		partial := `account: {slug: acme}
channels: [{key: sms, from: "+34910000009"}]
messaging: {quiet_hours: "22:00-08:00"}
`
		if _, err := ap.Apply(ctx, []byte(partial)); err != nil {
			t.Fatal(err)
		}
		sms, _ = channels.ByKey(ctx, store, box, acct, "sms")
		settings, _ = channels.LoadSettings(ctx, store, acct)
		if sms.From != "+34910000009" || sms.Credentials["auth_token"] != "twilio-tok-1" || sms.APIBase != "http://127.0.0.1:9" ||
			settings.DefaultChannel != "sms" || settings.QuietHours != "22:00-08:00" || settings.Language != "en" {
			t.Errorf("after a partial file: %+v %+v", sms, settings)
		}

		// Another server key (rotated): a file that does not give the
		// credentials again is refused, naming them; one that does repairs
		// the channel.
		rotated, _ := secrets.New([]byte("fedcba9876543210fedcba9876543210"))
		other := &workspace.Applier{DB: store, Now: func() time.Time { return now }, Secrets: rotated, Getenv: channelEnv, Targets: outbound.Policy{AllowPrivate: true}}
		_, err = other.Apply(ctx, []byte("account: {slug: acme}\nchannels: [{key: sms, from: \"+34910000008\"}]\n"))
		if err == nil || !strings.Contains(err.Error(), "channels[0].credentials: the stored credentials do not open") {
			t.Fatalf("partial apply under another key: %v", err)
		}
		if _, err := other.Apply(ctx, []byte(channelsFile)); err != nil {
			t.Fatalf("re-giving the credentials under the new key: %v", err)
		}
		if sms, err := channels.ByKey(ctx, store, rotated, acct, "sms"); err != nil || sms.Credentials["auth_token"] != "twilio-tok-1" {
			t.Fatalf("after repair: %+v %v", sms, err)
		}
		ap = other

		// Credentials need the server key; a variable must be set.
		for _, test := range []struct {
			name   string
			box    *secrets.Box
			getenv func(string) string
			want   string
		}{
			{"no server key", nil, channelEnv, "channels[0].credentials: credentials are stored encrypted: set FRONTDESK_SECRET_KEY"},
			{"unset variable", box, func(string) string { return "" }, "channels[0].credentials.auth_token: environment variable ACME_TWILIO_TOKEN is not set"},
		} {
			t.Run(test.name, func(t *testing.T) {
				before := snapshot(t, store)
				_, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }, Secrets: test.box, Getenv: test.getenv, Targets: outbound.Policy{AllowPrivate: true}}).Apply(ctx, []byte(channelsFile))
				var werr *workspace.Error
				if !errors.As(err, &werr) || !strings.Contains(err.Error(), test.want) {
					t.Fatalf("err = %v, want a problem %q", err, test.want)
				}
				if after := snapshot(t, store); after != before {
					t.Error("a refused file changed the store")
				}
			})
		}
	})
}

func TestChannelsValidation(t *testing.T) {
	for _, test := range []struct {
		name, file, want string
	}{
		{"type required for a new channel", `channels: [{key: x, provider: log}]`, "channels[0].type: is required for a new channel"},
		{"unknown type", `channels: [{key: x, type: fax, provider: log}]`, `channels[0].type: "fax" is not one of`},
		{"provider must fit the type", `channels: [{key: x, type: email, provider: twilio, from: a@b.test}]`, "channels[0].provider: a email channel takes provider"},
		{"from must be a phone", `channels: [{key: x, type: sms, provider: twilio, from: "nope"}]`, `channels[0].from: "nope" is not an international phone number`},
		{"from must be an address", `channels: [{key: x, type: email, provider: smtp, from: "nope"}]`, `channels[0].from: "nope" is not an e-mail address`},
		{"from required", `channels: [{key: x, type: sms, provider: twilio}]`, "channels[0].from: is required for a new sms channel"},
		{"bad uuid", `channels: [{key: x, type: log, provider: log, uuid: "12"}]`, `channels[0].uuid: "12" is not a UUID`},
		{"bad api_base", `channels: [{key: x, type: log, provider: log, api_base: "ftp://x"}]`, `channels[0].api_base: "ftp://x" is not an http(s) URL`},
		{"credential shape", `channels: [{key: x, type: log, provider: log, credentials: {a: [1]}}]`, "channels[0].credentials.a: must be a value or {env: NAME}"},
		{"template kind", `channels: [{key: x, type: log, provider: log, templates: {fax: {name: t}}}]`, `channels[0].templates.fax: "fax" is not one of`},
		{"default channel must exist", `messaging: {default_channel: nope}`, `messaging.default_channel: unknown channel "nope"`},
		{"route kind", `channels: [{key: x, type: log, provider: log}]` + "\n" + `messaging: {routes: {fax: x}}`, `messaging.routes.fax: "fax" is not one of`},
		{"route channel", `messaging: {routes: {seat_offer: nope}}`, `messaging.routes.seat_offer: unknown channel "nope"`},
		{"quiet hours", `messaging: {quiet_hours: "9-5"}`, `messaging.quiet_hours: "9-5" must look like 21:00-09:00`},
		{"language", `account: {slug: acme, language: fr}`, `account.language: "fr" is not one of es, en`},
	} {
		t.Run(test.name, func(t *testing.T) {
			file := test.file
			if !strings.HasPrefix(file, "account:") {
				file = "account: {slug: acme}\n" + file
			}
			f, err := workspace.Parse([]byte(file))
			if err == nil {
				err = workspace.Validate(f, nil)
			}
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("err = %v, want %q", err, test.want)
			}
		})
	}
}
