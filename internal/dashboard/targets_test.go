package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// The settings pages refuse what the workspace file refuses
// (docs/api-notes.md, "Outbound targets"): a channel's API address must be
// a public http(s) URL, an SMTP host a public host, a webhook URL a public
// http(s) URL; each refusal says so (in Spanish too) and writes nothing.
func TestSettingsRefuseInternalTargets(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
		if err != nil {
			t.Fatal(err)
		}
		h := newHarnessWith(t, store, func(c *dashboard.Config) { c.Secrets, c.Targets = box, outbound.Policy{} })
		h.applyChannels()
		ana := h.signedIn("ana@acme.test", "ana-password")
		channelsBefore, hooksBefore := h.count("channels", "1 = 1"), h.count("webhooks", "1 = 1")
		apiRefusal := "The API address must be a public http or https address."
		for _, test := range []struct {
			path string
			form url.Values
			want string
		}{
			{"/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {"http://169.254.169.254/latest"}, "active": {"on"}}, apiRefusal},
			{"/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {"file:///etc/passwd"}, "active": {"on"}}, apiRefusal},
			{"/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {"gopher://x.example/"}, "active": {"on"}}, apiRefusal},
			{"/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {"not a url"}, "active": {"on"}}, apiRefusal},
			{"/app/settings/channels/sms", url.Values{"from": {"+34910000001"}, "api_base": {"http://127.0.0.1:8080/api/v2/admin"}, "active": {"on"}}, apiRefusal},
			{"/app/settings/channels", url.Values{"key": {"lan"}, "type": {"email"}, "provider": {"smtp"}, "from": {"hola@acme.test"}, "active": {"on"},
				"cred_smtp_host": {"10.0.0.25"}}, "The SMTP host must be a public host name or address."},
			{"/app/settings/webhooks", url.Values{"url": {"http://169.254.169.254/latest/meta-data/"}, "events": {"appointment.booked"}},
				"The webhook URL must be a public http or https address of at most 2000 characters."},
			{"/app/settings/webhooks", url.Values{"url": {"http://10.1.2.3/in"}, "events": {"appointment.booked"}},
				"The webhook URL must be a public http or https address of at most 2000 characters."},
		} {
			p := ana.post(test.path, test.form)
			if p.Status != http.StatusSeeOther {
				t.Fatalf("%s %v: %d", test.path, test.form, p.Status)
			}
			ana.follow(p).must(t, http.StatusOK).contains(t, test.want)
		}
		if h.count("channels", "1 = 1") != channelsBefore || h.count("webhooks", "1 = 1") != hooksBefore ||
			h.count("channels", "api_base LIKE ?", "%169.254%") != 0 {
			t.Fatal("a refused target was written")
		}
		// In Spanish.
		h.applyYAML(`account: {slug: acme, language: es}`)
		marta := h.signedIn("eva@acme.test", "eva-password") // follows the account: Spanish
		p := marta.post("/app/settings/webhooks", url.Values{"url": {"http://127.0.0.1/in"}, "events": {"appointment.booked"}})
		marta.follow(p).contains(t, "La URL del webhook debe ser una dirección http o https pública")
	})
}
