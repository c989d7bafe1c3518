package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// Credential values of the channel fixtures: none may ever reach a page.
var channelSecrets = map[string]string{
	"ACME_TWILIO_TOKEN":  "twilio-token-d41d8cd9",
	"ACME_WA_TOKEN":      "wa-access-token-8f00b204",
	"ACME_WA_SECRET":     "wa-app-secret-e9800998",
	"ACME_SMTP_PASSWORD": "smtp-password-ecf8427e",
	"OTHER_TOKEN":        "other-token-4c1e9a57",
}

// Inline (not {env}) credential values of the fixtures: just as secret.
var inlineSecrets = []string{"ACsid0a1b2c3d4e5", "pnid-771234", "verify-token-5a52", "smtp-user-citas", "ACothersid99"}

const (
	smsUUID = "7f0e3a52-1111-4c1e-9a57-6f4a0f1f3a01"
	waUUID  = "7f0e3a52-2222-4c1e-9a57-6f4a0f1f3a02"
)

const acmeChannels = `
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: en}
channels:
  - {key: sms, uuid: ` + smsUUID + `, type: sms, provider: twilio, from: "+34910000001", api_base: "http://127.0.0.1:9",
     credentials: {account_sid: ACsid0a1b2c3d4e5, auth_token: {env: ACME_TWILIO_TOKEN}}}
  - {key: wa, uuid: ` + waUUID + `, type: whatsapp, provider: meta, from: "+34910000002",
     credentials: {phone_number_id: pnid-771234, access_token: {env: ACME_WA_TOKEN}, app_secret: {env: ACME_WA_SECRET}, verify_token: verify-token-5a52},
     templates: {booking_confirmation: {name: cita_confirmar, language: es}}}
  - {key: mail, type: email, provider: smtp, from: "citas@acme.test", active: false,
     credentials: {host: smtp.acme.test, port: "587", username: smtp-user-citas, password: {env: ACME_SMTP_PASSWORD}}}
messaging: {default_channel: sms, routes: {seat_offer: wa}, quiet_hours: "21:00-09:00"}
`

const otherChannels = `
account: {slug: other, name: Other Clinic, timezone: Europe/London, default_region: GB}
channels:
  - {key: othersms, type: sms, provider: twilio, from: "+447700900123", credentials: {account_sid: ACothersid99, auth_token: {env: OTHER_TOKEN}}}
messaging: {default_channel: othersms}
`

// applyChannels applies the channel fixtures of both accounts with a server
// key, credentials read from the environment, as serve does.
func (h *harness) applyChannels() {
	h.t.Helper()
	box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		h.t.Fatal(err)
	}
	for _, f := range []string{acmeChannels, otherChannels} {
		a := &workspace.Applier{DB: h.store, Now: h.clock.Now, HashPassword: password.Hash, Secrets: box, Targets: outbound.Policy{AllowPrivate: true},
			Getenv: func(name string) string { return channelSecrets[name] }}
		res, err := a.Apply(context.Background(), []byte(f))
		if err != nil {
			h.t.Fatalf("apply channels: %v", err)
		}
		h.merge(res)
	}
}

func (h *harness) account(slug string) account.Account {
	h.t.Helper()
	a, err := account.BySlug(context.Background(), h.store, slug)
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

// outboxRow is an outbox message as the worker and callbacks leave it.
type outboxRow struct {
	kind, channelKey, status, body, errText, providerID string
	attempts, segments                                  int
	delivered                                           bool
}

// addOutbox writes a message for slug directly, as delivery would have left
// it, and returns its id.
func (h *harness) addOutbox(slug string, m outboxRow) int64 {
	h.t.Helper()
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var segments, delivered, sent any
	if m.segments > 0 {
		segments = m.segments
	}
	if m.delivered {
		delivered = db.Micros(testNow.Add(5 * time.Minute))
	}
	if m.status != "pending" && m.status != "suppressed" {
		sent = db.Micros(testNow.Add(time.Minute))
	}
	var id int64
	err := h.store.QueryRow(context.Background(), `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, attempts, scheduled_at, created_at, sent_at,
		source_type, channel_key, provider_message_id, error, delivered_at, segments)
		VALUES (?, ?, 'sms', '+34600111222', ?, ?, ?, ?, ?, ?, 'test', ?, ?, ?, ?, ?) RETURNING id`,
		h.account(slug).ID, m.kind, m.body, m.status, m.attempts, db.Micros(testNow), db.Micros(testNow), sent,
		null(m.channelKey), null(m.providerID), null(m.errText), delivered, segments).Scan(&id)
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

func rowID(id int64) string { return fmt.Sprintf(`id="msg-%d"`, id) }

func (p page) lacks(t *testing.T, texts ...string) page {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(p.Body, s) {
			t.Fatalf("page contains %q; body: %.3000s", s, p.Body)
		}
	}
	return p
}

func TestActivityShowsDeliveryAndFilters(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		u := h.signedIn("ana@acme.test", "ana-password")

		// The oldest message is the one suppressed: 205 newer ones must not
		// hide it from the status filter (the filter is in the query).
		suppressed := h.addOutbox("acme", outboxRow{kind: "automation_message", channelKey: "wa", status: "suppressed",
			body: "Hola María", errText: "client opted out of channel wa"})
		for i := 0; i < 205; i++ {
			h.addOutbox("acme", outboxRow{kind: "booking_reminder", channelKey: "sms", status: "sent", body: fmt.Sprint("reminder ", i), attempts: 1, providerID: fmt.Sprint("SMfill", i), segments: 1})
		}
		delivered := h.addOutbox("acme", outboxRow{kind: "booking_confirmation", channelKey: "sms", status: "delivered", body: "Confirme su cita",
			attempts: 3, providerID: "SM0123456789abcdef", segments: 2, delivered: true})
		failed := h.addOutbox("acme", outboxRow{kind: "seat_offer", channelKey: "wa", status: "failed", body: "Hay hueco",
			attempts: 1, errText: "21211: The 'To' number is not a valid phone number (HTTP 400)"})
		reply := h.addOutbox("acme", outboxRow{kind: "channel_reply", channelKey: "sms", status: "sent", body: "You will not receive more messages", attempts: 1, providerID: "SMreply1"})
		hostile := h.addOutbox("acme", outboxRow{kind: "automation_message", channelKey: "<b>k</b>", status: "failed",
			body: "x", errText: `<script>alert("err")</script>`})
		otherMsg := h.addOutbox("other", outboxRow{kind: "automation_message", channelKey: "wa", status: "suppressed", body: "other-only-body", errText: "other-only-error"})

		// Everything: each message's delivery.
		u.get("/app/activity").must(t, http.StatusOK).contains(t,
			rowID(delivered), "SM0123456789abcdef", "3 attempts", "2 segments", "delivered", "23 Nov 2026, 10:05", // Madrid
			rowID(failed), "21211: The &#39;To&#39; number is not a valid phone number (HTTP 400)",
			rowID(reply), `<option value="channel_reply"`, `<option value="suppressed"`, `<option value="wa"`, `<option value="mail"`,
			"Showing the newest 200").
			lacks(t, rowID(suppressed), "other-only-body", "other-only-error")

		for _, test := range []struct {
			name, query string
			want, not   []int64
		}{
			{"status behind 205 newer", "status=suppressed", []int64{suppressed}, []int64{delivered, failed, reply}},
			{"channel", "channel=wa", []int64{suppressed, failed}, []int64{delivered, reply, hostile}},
			{"channel and status", "channel=wa&status=failed", []int64{failed}, []int64{suppressed}},
			{"kind channel_reply", "kind=channel_reply", []int64{reply}, []int64{delivered}},
			{"kind and status", "kind=automation_message&status=suppressed", []int64{suppressed}, []int64{hostile}},
			{"hostile channel key", "channel=" + url.QueryEscape("<b>k</b>"), []int64{hostile}, []int64{failed}},
		} {
			t.Run(test.name, func(t *testing.T) {
				p := u.get("/app/activity?"+test.query).must(t, http.StatusOK).lacks(t, "other-only-body", rowID(otherMsg))
				for _, id := range test.want {
					p.contains(t, rowID(id))
				}
				for _, id := range test.not {
					p.lacks(t, rowID(id))
				}
			})
		}
		// The selected filters stay selected.
		u.get("/app/activity?channel=wa&status=failed").contains(t, `<option value="wa" selected>`, `<option value="failed" selected>`)
		// Escaping: a channel key and an error with HTML are text.
		u.get("/app/activity?channel="+url.QueryEscape("<b>k</b>")).contains(t,
			"&lt;b&gt;k&lt;/b&gt;", "&lt;script&gt;alert(&#34;err&#34;)&lt;/script&gt;").lacks(t, "<b>k</b>", "<script>alert")

		// Unknown values: a closed vocabulary is a 400 naming the choices; an
		// unknown channel key matches nothing; over-long or invalid text is a 400.
		u.get("/app/activity?status=bogus").must(t, http.StatusBadRequest).contains(t, "Unknown status", "suppressed")
		u.get("/app/activity?kind=%3Cscript%3E").must(t, http.StatusBadRequest).contains(t, "Unknown kind &#34;&lt;script&gt;&#34;", "channel_reply").lacks(t, "<script>")
		u.get("/app/activity?channel=nope").must(t, http.StatusOK).contains(t, "No message matches these filters")
		u.get("/app/activity?channel="+strings.Repeat("k", 101)).must(t, http.StatusBadRequest).contains(t, "at most 100 characters")
		u.get("/app/activity?channel=%ff").must(t, http.StatusBadRequest)

		// The other account sees its own message and none of acme's.
		bob := h.signedIn("bob@other.test", "bob-password")
		for _, q := range []string{"", "?channel=wa", "?status=suppressed", "?channel=sms"} {
			bob.get("/app/activity"+q).must(t, http.StatusOK).lacks(t, "SM0123456789abcdef", "Hola María", rowID(suppressed), rowID(delivered))
		}
		bob.get("/app/activity?channel=wa").contains(t, rowID(otherMsg), "other-only-error")
	})
}

func TestChannelsSettingsPage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		ctx := context.Background()
		// The credentials are stored, sealed.
		var sealed string
		if err := store.QueryRow(ctx, `SELECT credentials FROM channels WHERE file_key = 'sms' AND account_id = ?`, h.account("acme").ID).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		if sealed == "" || strings.Contains(sealed, channelSecrets["ACME_TWILIO_TOKEN"]) {
			t.Fatalf("credentials stored as %q", sealed)
		}
		if h.acme().Channels["sms"] != smsUUID {
			t.Fatalf("ids.channels = %v", h.acme().Channels)
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/settings").contains(t, `href="/app/settings/channels"`)
		base := h.srv.URL // no public URL configured: the request's own address
		p := u.get("/app/settings/channels").must(t, http.StatusOK).contains(t,
			`aria-current="true">Settings`, `aria-current="page">Channels`, "English (en)", "21:00-09:00", "Europe/Madrid",
			"<td>seat_offer</td><td>wa</td>",
			"<strong>sms</strong>", "twilio", "&#43;34910000001", "http://127.0.0.1:9",
			"<strong>wa</strong>", "meta", "booking_confirmation → cita_confirmar (es)",
			"<strong>mail</strong>", "smtp", "citas@acme.test",
			`value="`+base+`/hooks/twilio/`+smsUUID+`/status"`,
			`value="`+base+`/hooks/twilio/`+smsUUID+`/inbound"`,
			`value="`+base+`/hooks/whatsapp/`+waUUID+`"`,
			"Set the server&#39;s public URL").
			lacks(t, "othersms", "&#43;447700900123")
		if !strings.Contains(p.Body, "<dt>Default channel</dt><dd>sms</dd>") {
			t.Fatalf("default channel not shown: %.3000s", p.Body)
		}
		for _, v := range channelSecrets {
			p.lacks(t, v)
		}
		for _, v := range inlineSecrets {
			p.lacks(t, v)
		}
		// The mail channel is inactive and has nothing to register.
		if i := strings.Index(p.Body, "<strong>mail</strong>"); i < 0 || !strings.Contains(p.Body[i:i+600], "<td>no</td>") || !strings.Contains(p.Body[i:i+800], "nothing to register") {
			t.Fatalf("mail channel row: %.800s", p.Body[i:])
		}

		// Escaping: a channel whose key and sender carry HTML.
		if _, err := store.Exec(ctx, `INSERT INTO channels (account_id, file_key, uuid, type, provider, from_address, created_at, updated_at)
			VALUES (?, '<i>k</i>', 'aaaaaaaa-0000-4000-8000-000000000001', 'log', 'log', '<script>alert(1)</script>', 0, 0)`, h.account("acme").ID); err != nil {
			t.Fatal(err)
		}
		u.get("/app/settings/channels").must(t, http.StatusOK).contains(t, "&lt;i&gt;k&lt;/i&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;").lacks(t, "<i>k</i>", "<script>alert")

		// The other account sees its channel only.
		bob := h.signedIn("bob@other.test", "bob-password")
		bp := bob.get("/app/settings/channels").must(t, http.StatusOK).contains(t, "othersms", "&#43;447700900123", "Spanish (es)", "<dd>othersms</dd>", "No routes").
			lacks(t, smsUUID, waUUID, "citas@acme.test", "&lt;i&gt;k&lt;/i&gt;", "&#43;34910000001")
		for _, v := range append([]string{"ACothersid99"}, channelSecrets["OTHER_TOKEN"]) {
			bp.lacks(t, v)
		}
	})
}

// With a public URL configured, the callback URLs use it, whatever address
// the page was reached at.
func TestChannelsPageUsesPublicURL(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarnessWith(t, store, func(c *dashboard.Config) { c.PublicURL = "https://frontdesk.example.com/" })
		h.applyChannels()
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/settings/channels").must(t, http.StatusOK).contains(t,
			`value="https://frontdesk.example.com/hooks/twilio/`+smsUUID+`/status"`,
			`value="https://frontdesk.example.com/hooks/whatsapp/`+waUUID+`"`).
			lacks(t, h.srv.URL+"/hooks", "Set the server&#39;s public URL")
	})
}

func TestClientPageShowsConsent(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		ctx := context.Background()
		acme := h.account("acme")
		pedro, maria := h.acme().Clients["pedro"], h.acme().Clients["maria"]
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/clients/"+itoa(pedro)).must(t, http.StatusOK).contains(t, "No opt-out on any channel")

		list, err := channels.List(ctx, store, acme)
		if err != nil {
			t.Fatal(err)
		}
		id := map[string]int64{}
		for _, ch := range list {
			id[ch.Key] = ch.ID
		}
		set := func(client int64, key string, out bool, at time.Time) {
			t.Helper()
			if err := store.Transact(ctx, func(tx *db.Tx) error {
				_, err := channels.SetConsent(ctx, tx, acme, client, id[key], out, at)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		set(pedro, "sms", true, testNow)                  // STOP
		set(pedro, "wa", true, testNow.Add(time.Hour))    // BAJA
		set(pedro, "wa", false, testNow.Add(2*time.Hour)) // ALTA
		set(maria, "mail", true, testNow)

		p := u.get("/app/clients/"+itoa(pedro)).must(t, http.StatusOK)
		sms := row(t, p.Body, "<td>sms</td>")
		if !strings.Contains(sms, "opted out") || !strings.Contains(sms, "23 Nov 2026, 10:00") {
			t.Fatalf("sms consent row: %s", sms)
		}
		wa := row(t, p.Body, "<td>wa</td>")
		if !strings.Contains(wa, "receives messages") || !strings.Contains(wa, "23 Nov 2026, 11:00") || !strings.Contains(wa, "23 Nov 2026, 12:00") {
			t.Fatalf("wa consent row: %s", wa)
		}
		p.lacks(t, "<td>mail</td>") // maria's opt-out is hers
		// Another account's user cannot reach the page.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.get("/app/clients/"+itoa(pedro)).must(t, http.StatusNotFound)
	})
}

// row returns the table row of body that contains cell.
func row(t *testing.T, body, cell string) string {
	t.Helper()
	i := strings.Index(body, cell)
	if i < 0 {
		t.Fatalf("no row with %s: %.3000s", cell, body)
	}
	start := strings.LastIndex(body[:i], "<tr")
	end := strings.Index(body[i:], "</tr>")
	return body[start : i+end]
}
