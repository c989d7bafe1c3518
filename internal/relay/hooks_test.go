package relay_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/relay"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

var testNow = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

const (
	twilioUUID = "7c1e2f3a-0000-4000-8000-000000000001"
	metaUUID   = "7c1e2f3a-0000-4000-8000-000000000002"
	hookBase   = "https://fd.example"
)

type env struct {
	store   *db.DB
	box     *secrets.Box
	clock   *clock.Fake
	acct    account.Account
	other   account.Account
	sms     channels.Channel
	wa      channels.Channel
	hooks   *relay.Hooks
	answers []string
}

// newEnv applies the acme workspace (client María, +34600111222) and a
// second account, and stores a Twilio SMS channel and a Meta WhatsApp
// channel for acme.
func newEnv(t *testing.T, store *db.DB) *env {
	t.Helper()
	ctx := context.Background()
	box, _ := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	e := &env{store: store, box: box, clock: clock.NewFake(testNow)}
	ws := &workspace.Applier{DB: store, Now: e.clock.Now, Targets: outbound.Policy{AllowPrivate: true}}
	data, err := os.ReadFile("../workspace/testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Apply(ctx, data); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Apply(ctx, []byte(`account: {slug: other, name: Other, timezone: Europe/Madrid, default_region: ES}`)); err != nil {
		t.Fatal(err)
	}
	e.acct, _ = account.BySlug(ctx, store, "acme")
	e.other, _ = account.BySlug(ctx, store, "other")
	e.sms = channels.Channel{Key: "sms", UUID: twilioUUID, Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", Active: true,
		Credentials: map[string]string{"account_sid": "AC1", "auth_token": "twilio-token"}}
	e.wa = channels.Channel{Key: "wa", UUID: metaUUID, Type: channels.TypeWhatsApp, Provider: channels.ProviderMeta, From: "+34910000002", Active: true,
		Credentials: map[string]string{"phone_number_id": "1234", "access_token": "EAA", "app_secret": "meta-secret", "verify_token": "v3rify"}}
	err = store.Transact(ctx, func(tx *db.Tx) error {
		var err error
		if e.sms.ID, _, err = channels.Save(ctx, tx, box, e.acct, e.sms, "", testNow); err != nil {
			return err
		}
		e.wa.ID, _, err = channels.Save(ctx, tx, box, e.acct, e.wa, "", testNow)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.sms.AccountID, e.wa.AccountID = e.acct.ID, e.acct.ID
	e.hooks = &relay.Hooks{DB: store, Secrets: box, Clock: e.clock,
		Answer: func(_ context.Context, _ *db.Tx, r relay.Reply, body string, _ time.Time) error {
			e.answers = append(e.answers, r.Channel.Key+": "+body)
			return nil
		}}
	return e
}

func signedTwilio(path string, form url.Values) (string, string) {
	u := hookBase + path
	return u, channels.TwilioSignature("twilio-token", u, form)
}

func TestChannelCredentialsSealed(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		var raw string
		if err := store.QueryRow(ctx, `SELECT credentials FROM channels WHERE id = ?`, e.sms.ID).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if !secrets.IsSealed(raw) || strings.Contains(raw, "twilio-token") {
			t.Fatalf("credentials stored as %q", raw)
		}
		ch, err := channels.ByUUID(ctx, store, e.box, strings.ToUpper(twilioUUID))
		if err != nil || ch.Credentials["auth_token"] != "twilio-token" || ch.AccountID != e.acct.ID {
			t.Fatalf("ByUUID = %+v, %v", ch, err)
		}
		// Saving the same values again writes nothing (sealing is randomised).
		err = store.Transact(ctx, func(tx *db.Tx) error {
			_, _, err := channels.Save(ctx, tx, e.box, e.acct, e.sms, "", testNow.Add(time.Hour))
			return err
		})
		var again string
		store.QueryRow(ctx, `SELECT credentials FROM channels WHERE id = ?`, e.sms.ID).Scan(&again)
		if err != nil || again != raw {
			t.Errorf("an unchanged save rewrote the credentials (err %v)", err)
		}
		// Listing never carries credentials.
		list, err := channels.List(ctx, store, e.acct)
		if err != nil || len(list) != 2 || list[0].Credentials != nil {
			t.Errorf("List = %+v, %v", list, err)
		}
		if list, _ := channels.List(ctx, store, e.other); len(list) != 0 {
			t.Errorf("another account lists %d channels", len(list))
		}
		// Without the key, a sealed channel cannot be used.
		if _, err := channels.ByUUID(ctx, store, nil, twilioUUID); !errors.Is(err, secrets.ErrNoKey) {
			t.Errorf("keyless ByUUID err = %v", err)
		}
	})
}

func queueSent(t *testing.T, e *env, ch channels.Channel, providerID, status string) int64 {
	t.Helper()
	var id int64
	err := e.store.QueryRow(context.Background(), `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, scheduled_at, created_at,
			source_type, channel_id, channel_key, provider_message_id) VALUES (?, 'booking_confirmation', 'sms', '+34600111222', 'x', ?, ?, ?, 'booking', ?, ?, ?) RETURNING id`,
		e.acct.ID, status, db.Micros(testNow), db.Micros(testNow), ch.ID, ch.Key, providerID).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func outboxStatus(t *testing.T, e *env, id int64) string {
	var s string
	if err := e.store.QueryRow(context.Background(), `SELECT status FROM outbox WHERE id = ?`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTwilioStatusCallback(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		id := queueSent(t, e, e.sms, "SM1", "sent")
		path := "/hooks/twilio/" + twilioUUID + "/status"
		steps := []struct {
			name, status, sigMode string
			wantCode              string
			want                  string
		}{
			{"unsigned is forbidden", "delivered", "none", errs.Forbidden, "sent"},
			{"wrong signature is forbidden", "delivered", "wrong", errs.Forbidden, "sent"},
			{"delivered", "delivered", "ok", "", "delivered"},
			{"sent again does not move back", "sent", "ok", "", "delivered"},
			{"failed after delivered is ignored", "failed", "ok", "", "delivered"},
			{"read", "read", "ok", "", "read"},
			{"repeat read changes nothing", "read", "ok", "", "read"},
		}
		for _, s := range steps {
			form := url.Values{"MessageSid": {"SM1"}, "MessageStatus": {s.status}, "AccountSid": {"AC1"}}
			u, sig := signedTwilio(path, form)
			switch s.sigMode {
			case "none":
				sig = ""
			case "wrong":
				sig = channels.TwilioSignature("not-the-token", u, form)
			}
			err := e.hooks.TwilioStatus(ctx, twilioUUID, u, form, sig)
			if s.wantCode == "" && err != nil || s.wantCode != "" && !errs.Is(err, s.wantCode) {
				t.Fatalf("%s: err = %v, want %q", s.name, err, s.wantCode)
			}
			if got := outboxStatus(t, e, id); got != s.want {
				t.Fatalf("%s: status %s, want %s", s.name, got, s.want)
			}
		}
		// Unknown uuid, a Meta channel's uuid on the Twilio route, malformed forms.
		form := url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"delivered"}}
		u, sig := signedTwilio(path, form)
		if err := e.hooks.TwilioStatus(ctx, "00000000-0000-4000-8000-000000000000", u, form, sig); !errs.Is(err, errs.NotFound) {
			t.Errorf("unknown uuid: %v", err)
		}
		if err := e.hooks.TwilioStatus(ctx, metaUUID, u, form, sig); !errs.Is(err, errs.NotFound) {
			t.Errorf("meta uuid on twilio route: %v", err)
		}
		bad := url.Values{"MessageStatus": {"delivered"}}
		u, sig = signedTwilio(path, bad)
		if err := e.hooks.TwilioStatus(ctx, twilioUUID, u, bad, sig); !errs.Is(err, errs.ValidationError) {
			t.Errorf("form without MessageSid: %v", err)
		}
	})
}

func conversationMessages(t *testing.T, e *env, acct account.Account) (convs int, msgs []string) {
	t.Helper()
	ctx := context.Background()
	e.store.QueryRow(ctx, `SELECT COUNT(*) FROM conversations WHERE account_id = ? AND channel_id IS NOT NULL`, acct.ID).Scan(&convs)
	rows, err := e.store.Query(ctx, `SELECT m.sender_kind, m.content FROM messages m JOIN conversations c ON c.account_id = m.account_id AND c.id = m.conversation_id
		WHERE c.account_id = ? AND c.channel_id IS NOT NULL ORDER BY m.id`, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, c string
		rows.Scan(&k, &c)
		msgs = append(msgs, k+":"+c)
	}
	return convs, msgs
}

func TestInboundAndOptOut(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		path := "/hooks/twilio/" + twilioUUID + "/inbound"
		send := func(sid, body string) error {
			form := url.Values{"MessageSid": {sid}, "From": {"+34600111222"}, "To": {"+34910000001"}, "Body": {body}, "NumMedia": {"0"}}
			u, sig := signedTwilio(path, form)
			return e.hooks.TwilioInbound(ctx, twilioUUID, u, form, sig)
		}
		if err := send("SMin1", "Hola, ¿tenéis hueco mañana?"); err != nil {
			t.Fatal(err)
		}
		if err := send("SMin1", "Hola, ¿tenéis hueco mañana?"); err != nil { // Twilio retries
			t.Fatal(err)
		}
		if n, msgs := conversationMessages(t, e, e.acct); n != 1 || len(msgs) != 1 || msgs[0] != "client:Hola, ¿tenéis hueco mañana?" {
			t.Fatalf("after a repeated callback: %d conversations, %v", n, msgs)
		}
		// STOP opts María out of the SMS channel, answered once.
		for i, sid := range []string{"SMin2", "SMin3"} {
			if err := send(sid, "STOP"); err != nil {
				t.Fatal(err)
			}
			if len(e.answers) != 1 {
				t.Fatalf("after STOP #%d: answers %v", i+1, e.answers)
			}
		}
		if !strings.Contains(e.answers[0], "ALTA") {
			t.Errorf("opt-out answer %q is not the Spanish one", e.answers[0])
		}
		var clientID int64
		store.QueryRow(ctx, `SELECT id FROM clients WHERE account_id = ? AND phone_national = '600111222'`, e.acct.ID).Scan(&clientID)
		if out, _ := channels.OptedOut(ctx, store, e.acct, clientID, e.sms.ID); !out {
			t.Fatal("not opted out after STOP")
		}
		if out, _ := channels.OptedOut(ctx, store, e.acct, clientID, e.wa.ID); out {
			t.Fatal("STOP on SMS opted out of WhatsApp too")
		}
		if err := send("SMin4", "Alta"); err != nil {
			t.Fatal(err)
		}
		if out, _ := channels.OptedOut(ctx, store, e.acct, clientID, e.sms.ID); out || len(e.answers) != 2 {
			t.Fatalf("after ALTA: opted out %v, answers %v", out, e.answers)
		}
		cs, err := channels.ClientConsent(ctx, store, e.acct, clientID)
		if err != nil || len(cs) != 1 || cs[0].OptedOut || cs[0].OptedOutAt == nil || cs[0].OptedInAt == nil {
			t.Errorf("consents = %+v, %v", cs, err)
		}
		// Every message is in the one conversation; the other account has none.
		if n, msgs := conversationMessages(t, e, e.acct); n != 1 || len(msgs) != 4 {
			t.Errorf("%d conversations, %v", n, msgs)
		}
		if n, _ := conversationMessages(t, e, e.other); n != 0 {
			t.Errorf("other account got %d conversations", n)
		}
		// A message to another number (a misrouted webhook) records nothing.
		other := url.Values{"MessageSid": {"SMin8"}, "From": {"+34600111222"}, "To": {"+34919999999"}, "Body": {"STOP"}, "NumMedia": {"0"}}
		u, sig := signedTwilio(path, other)
		if err := e.hooks.TwilioInbound(ctx, twilioUUID, u, other, sig); err != nil {
			t.Fatal(err)
		}
		if out, _ := channels.OptedOut(ctx, store, e.acct, clientID, e.sms.ID); out {
			t.Error("a STOP sent to another number opted the client out")
		}
		// A number in no known format changes nothing.
		form := url.Values{"MessageSid": {"SMin9"}, "From": {"12"}, "Body": {"x"}}
		u, sig = signedTwilio(path, form)
		if err := e.hooks.TwilioInbound(ctx, twilioUUID, u, form, sig); !errs.Is(err, errs.ValidationError) {
			t.Errorf("bad From: %v", err)
		}
	})
}

func TestMetaCallbacks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		ctx := context.Background()
		id := queueSent(t, e, e.wa, "wamid.OUT1", "sent")
		if c, err := e.hooks.MetaVerify(ctx, metaUUID, url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"v3rify"}, "hub.challenge": {"42"}}); err != nil || c != "42" {
			t.Errorf("verify = %q, %v", c, err)
		}
		if _, err := e.hooks.MetaVerify(ctx, metaUUID, url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"x"}, "hub.challenge": {"42"}}); !errs.Is(err, errs.Forbidden) {
			t.Errorf("wrong verify token: %v", err)
		}
		body := []byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{
			"metadata":{"display_phone_number":"34910000002","phone_number_id":"1234"},
			"contacts":[{"profile":{"name":"María"},"wa_id":"34600111222"}],
			"messages":[{"from":"34600111222","id":"wamid.IN1","type":"text","text":{"body":"gracias"}}],
			"statuses":[{"id":"wamid.OUT1","status":"delivered"}]}}]}]}`)
		if err := e.hooks.MetaEvent(ctx, metaUUID, body, "sha256=00"); !errs.Is(err, errs.Forbidden) {
			t.Fatalf("bad signature: %v", err)
		}
		if outboxStatus(t, e, id) != "sent" {
			t.Fatal("a forbidden callback changed the outbox")
		}
		sig := channels.MetaSignature("meta-secret", body)
		for i := 0; i < 2; i++ {
			if err := e.hooks.MetaEvent(ctx, metaUUID, body, sig); err != nil {
				t.Fatal(err)
			}
		}
		if got := outboxStatus(t, e, id); got != "delivered" {
			t.Errorf("status %s", got)
		}
		if n, msgs := conversationMessages(t, e, e.acct); n != 1 || len(msgs) != 1 || msgs[0] != "client:gracias" {
			t.Errorf("%d conversations, %v", n, msgs)
		}
		// Another number of the same Meta app: signed alike, not this account's.
		foreign := []byte(`{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"9999"},
			"messages":[{"from":"34600111222","id":"wamid.IN9","type":"text","text":{"body":"STOP"}}]}}]}]}`)
		if err := e.hooks.MetaEvent(ctx, metaUUID, foreign, channels.MetaSignature("meta-secret", foreign)); err != nil {
			t.Fatal(err)
		}
		if n, msgs := conversationMessages(t, e, e.acct); n != 1 || len(msgs) != 1 {
			t.Errorf("a message to another number of the app was recorded: %d %v", n, msgs)
		}
		// A message that cannot be used is logged (channel and reason, never
		// its text) and left out; the delivery is still accepted.
		var logged bytes.Buffer
		e.hooks.Log = slog.New(slog.NewTextHandler(&logged, nil))
		unusable := []byte(`{"entry":[{"changes":[{"value":{"messages":[{"type":"text","text":{"body":"secreto"}},
			{"from":"12","id":"wamid.IN10","type":"text","text":{"body":"secreto"}}]}}]}]}`)
		if err := e.hooks.MetaEvent(ctx, metaUUID, unusable, channels.MetaSignature("meta-secret", unusable)); err != nil {
			t.Errorf("a delivery of unusable messages: %v", err)
		}
		if n, msgs := conversationMessages(t, e, e.acct); n != 1 || len(msgs) != 1 {
			t.Errorf("an unusable message was recorded: %d %v", n, msgs)
		}
		for _, want := range []string{"channel_uuid=" + metaUUID, "messages[0]: no id", "wamid.IN10: from is not an international phone number"} {
			if !strings.Contains(logged.String(), want) {
				t.Errorf("log lacks %q:\n%s", want, logged.String())
			}
		}
		if strings.Contains(logged.String(), "secreto") {
			t.Errorf("the log carries a message's text:\n%s", logged.String())
		}
		bad := []byte(`{"entry":[{"changes":[{"value":{"messages":`)
		if err := e.hooks.MetaEvent(ctx, metaUUID, bad, channels.MetaSignature("meta-secret", bad)); !errs.Is(err, errs.ValidationError) {
			t.Errorf("malformed: %v", err)
		}
	})
}

func TestQuietHours(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	qh, err := channels.ParseQuietHours("21:00-09:00")
	if err != nil {
		t.Fatal(err)
	}
	day := qh
	day, _ = channels.ParseQuietHours("13:00-15:00")
	for _, test := range []struct {
		name   string
		q      channels.QuietHours
		at     time.Time
		want   time.Time
		inside bool
	}{
		{"evening waits for the morning", qh, time.Date(2026, 11, 25, 22, 30, 0, 0, madrid), time.Date(2026, 11, 26, 9, 0, 0, 0, madrid), true},
		{"early morning waits until 9", qh, time.Date(2026, 11, 26, 7, 0, 0, 0, madrid), time.Date(2026, 11, 26, 9, 0, 0, 0, madrid), true},
		{"daytime goes", qh, time.Date(2026, 11, 26, 12, 0, 0, 0, madrid), time.Time{}, false},
		{"the end itself goes", qh, time.Date(2026, 11, 26, 9, 0, 0, 0, madrid), time.Time{}, false},
		{"same-day window", day, time.Date(2026, 11, 26, 14, 0, 0, 0, madrid), time.Date(2026, 11, 26, 15, 0, 0, 0, madrid), true},
		{"none", channels.QuietHours{}, time.Date(2026, 11, 26, 3, 0, 0, 0, madrid), time.Time{}, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, inside := test.q.Until(test.at, madrid)
			if inside != test.inside || !got.Equal(test.want) {
				t.Errorf("Until = %v %v, want %v %v", got, inside, test.want, test.inside)
			}
		})
	}
	for _, bad := range []string{"21:00", "25:00-09:00", "09:00-09:00", "nine-ten"} {
		if _, err := channels.ParseQuietHours(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
