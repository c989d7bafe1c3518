package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// TestSettingsChannels: an owner edits a channel's credentials (write-only:
// an empty field keeps the stored value; stored sealed; never in a page or
// the audit log), sends a test message through the provider (a fake
// Twilio), and adds a channel; refusals write nothing; another account's
// channel is a 404; a server without a key refuses to store credentials.
func TestSettingsChannels(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
		if err != nil {
			t.Fatal(err)
		}
		h := newHarnessWith(t, store, func(c *dashboard.Config) { c.Secrets = box })
		h.applyChannels()
		acme := h.account("acme")
		fake := &channelstest.Twilio{SID: "ACsid0a1b2c3d4e5", Token: "new-token-77aa"}
		provider := httptest.NewServer(fake)
		defer provider.Close()
		ana := h.signedIn("ana@acme.test", "ana-password")
		secretsSeen := []string{"new-token-77aa", "wrong-token-31ff", "pw-secret-123"}
		assertHidden := func(where string, text string) {
			t.Helper()
			for _, v := range append(append(secretsSeen, inlineSecrets...), channelSecrets["ACME_TWILIO_TOKEN"], channelSecrets["ACME_WA_TOKEN"]) {
				if strings.Contains(text, v) {
					t.Fatalf("%s shows the credential %q", where, v)
				}
			}
		}
		ana.get("/app/settings/channels").must(t, http.StatusOK).contains(t, `name="cred_auth_token"`, "Send test message")

		// New token and the fake's address; the account SID is kept.
		p := ana.post("/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {provider.URL}, "active": {"on"},
			"cred_auth_token": {"new-token-77aa"}, "cred_account_sid": {""}})
		ana.follow(p).must(t, http.StatusOK).contains(t, "Channel “sms” saved.")
		var sealed string
		store.QueryRow(t.Context(), `SELECT credentials FROM channels WHERE account_id = ? AND file_key = 'sms'`, acme.ID).Scan(&sealed)
		if !secrets.IsSealed(sealed) || strings.Contains(sealed, "new-token-77aa") {
			t.Fatalf("credentials stored as %q", sealed)
		}
		ch, err := channels.ByKey(t.Context(), store, box, acme, "sms")
		if err != nil || ch.Credentials["auth_token"] != "new-token-77aa" || ch.Credentials["account_sid"] != "ACsid0a1b2c3d4e5" || ch.APIBase != provider.URL {
			t.Fatalf("after save: %v %v", ch.APIBase, err)
		}

		// The test message goes through the provider.
		ana.follow(ana.post("/app/settings/channels/sms/test", url.Values{"to": {"+34600111222"}})).contains(t, "Test message sent through “sms”")
		if sent := fake.Sent(); len(sent) != 1 || sent[0].Get("To") != "+34600111222" || sent[0].Get("From") != "+34910000001" {
			t.Fatalf("provider got %v", sent)
		}
		// A refused one says why, without the credentials.
		ana.follow(ana.post("/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {provider.URL}, "active": {"on"}, "cred_auth_token": {"wrong-token-31ff"}}))
		refused := ana.follow(ana.post("/app/settings/channels/sms/test", url.Values{"to": {"+34600111222"}})).contains(t, "The provider refused the test message")
		assertHidden("the refused test's page", refused.Body)
		ana.follow(ana.post("/app/settings/channels/sms/test", url.Values{"to": {""}})).contains(t, "flash error")

		// Add a channel.
		ana.follow(ana.post("/app/settings/channels", url.Values{"key": {"mail2"}, "type": {"email"}, "provider": {"smtp"}, "from": {"hola@acme.test"},
			"active": {"on"}, "cred_smtp_host": {"smtp.acme.test"}, "cred_smtp_password": {"pw-secret-123"}, "cred_twilio_auth_token": {"ignored"}})).
			contains(t, "Channel “mail2” saved.")
		added, err := channels.ByKey(t.Context(), store, box, acme, "mail2")
		if err != nil || added.Credentials["password"] != "pw-secret-123" || added.Credentials["host"] != "smtp.acme.test" || len(added.Credentials) != 2 || added.UUID == "" {
			t.Fatalf("added %+v %v", added.Credentials, err)
		}

		// Refusals: nothing written, nothing audited.
		audits := h.count("audit_log", "1 = 1")
		chans := h.count("channels", "account_id = ?", acme.ID)
		for _, bad := range []url.Values{
			{"key": {"sms"}, "type": {"sms"}, "provider": {"log"}},
			{"key": {"Bad Key"}, "type": {"sms"}, "provider": {"log"}},
			{"key": {"tw2"}, "type": {"sms"}, "provider": {"twilio"}, "cred_twilio_account_sid": {"AC1"}},
			{"key": {"x"}, "type": {"email"}, "provider": {"twilio"}},
		} {
			ana.follow(ana.post("/app/settings/channels", bad)).contains(t, "flash error")
		}
		if h.count("audit_log", "1 = 1") != audits || h.count("channels", "account_id = ?", acme.ID) != chans {
			t.Fatal("a refused channel wrote")
		}

		// Pages and the audit log never hold a credential.
		assertHidden("the channels page", ana.get("/app/settings/channels").must(t, http.StatusOK).Body)
		assertHidden("the audit page", ana.get("/app/settings/audit").must(t, http.StatusOK).contains(t, "credentials.auth_token", "mail2").Body)
		rows, err := store.Query(t.Context(), `SELECT summary FROM audit_log`)
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for rows.Next() {
			var s string
			rows.Scan(&s)
			all.WriteString(s + "\n")
		}
		rows.Close()
		assertHidden("the audit log", all.String())
		if h.count("audit_log", "object_type = 'channel' AND object_id = 'sms' AND action = 'updated'") != 2 ||
			h.count("audit_log", "object_type = 'channel' AND object_id = 'mail2' AND action = 'created' AND summary = 'email via smtp; credentials: host, password'") != 1 {
			t.Fatalf("audit rows: %s", all.String())
		}

		// Another account's channel is unknown.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/settings/channels/sms", url.Values{"from": {"+1"}}).must(t, http.StatusNotFound)
		bob.post("/app/settings/channels/sms/test", url.Values{"to": {"+34600111222"}}).must(t, http.StatusNotFound)
		ana.post("/app/settings/channels/othersms", url.Values{"from": {"+1"}}).must(t, http.StatusNotFound)
		ana.post("/app/settings/channels/othersms/test", url.Values{"to": {"+34600111222"}}).must(t, http.StatusNotFound)
		if len(fake.Sent()) != 1 {
			t.Fatal("another account's test was sent")
		}
	})
}

// TestSettingsChannelsWithoutKey: a server without FRONTDESK_SECRET_KEY
// stores no credentials, and says so.
func TestSettingsChannelsWithoutKey(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get("/app/settings/channels").must(t, http.StatusOK).contains(t, "no FRONTDESK_SECRET_KEY")
		ana.follow(ana.post("/app/settings/channels", url.Values{"key": {"sms2"}, "type": {"sms"}, "provider": {"twilio"},
			"cred_twilio_account_sid": {"AC1"}, "cred_twilio_auth_token": {"tok-123456"}})).contains(t, "FRONTDESK_SECRET_KEY")
		if h.count("channels", "file_key = 'sms2'") != 0 {
			t.Fatal("stored credentials without a key")
		}
		// A log channel needs no credentials.
		ana.follow(ana.post("/app/settings/channels", url.Values{"key": {"dev"}, "type": {"log"}, "provider": {"log"}, "active": {"on"}})).contains(t, "Channel “dev” saved.")
		ana.follow(ana.post("/app/settings/channels/dev/test", url.Values{"to": {"+34600111222"}})).contains(t, "Test message sent through “dev”")
	})
}
