package httpapi_test

import (
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// A workspace file applied over the admin API may not point Frontdesk at an
// address inside the network (docs/api-notes.md, "Outbound targets"): the
// server's default policy refuses loopback, private, link-local and odd
// schemes with VALIDATION_ERROR naming each field, and writes nothing.
func TestAdminWorkspaceRefusesInternalTargets(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		file := `{"account": {"slug": "acme"},
			"webhooks": [{"key": "meta", "url": "http://169.254.169.254/latest/meta-data/"},
			             {"key": "self", "url": "http://127.0.0.1:8080/api/v2/admin/workspaces/acme"},
			             {"key": "lan", "url": "http://192.168.1.20/hook"},
			             {"key": "ok", "url": "https://crm.example.com/hook"}],
			"channels": [{"key": "gopher", "type": "sms", "provider": "twilio", "from": "+34910000009", "api_base": "gopher://x.example/"},
			             {"key": "lo", "type": "whatsapp", "provider": "meta", "from": "+34910000008", "api_base": "http://localhost:9"}]}`
		r := h.do("PUT", "/api/v2/admin/workspaces/acme", adminKey, file).must(t, 400)
		if r.errorCode() != "VALIDATION_ERROR" {
			t.Fatalf("%s", r.Raw)
		}
		raw := string(r.Raw)
		for _, field := range []string{"webhooks[0].url", "webhooks[1].url", "webhooks[2].url", "channels[0].api_base", "channels[1].api_base"} {
			if !strings.Contains(raw, field) {
				t.Errorf("no problem names %s: %s", field, raw)
			}
		}
		if strings.Contains(raw, "webhooks[3]") {
			t.Errorf("a public URL was refused: %s", raw)
		}
		if n := h.count("webhooks", "url LIKE ?", "%169.254%"); n != 0 {
			t.Errorf("%d refused webhooks written", n)
		}
	})
}
