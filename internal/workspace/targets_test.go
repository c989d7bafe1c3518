package workspace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The file's targets pass the server's outbound policy (docs/api-notes.md,
// "Outbound targets"): refused by default, each problem naming its field;
// allowed with FRONTDESK_ALLOW_PRIVATE_TARGETS, except link-local ones.
func TestWorkspaceTargets(t *testing.T) {
	const file = `account: {slug: acme, name: Acme, timezone: Europe/Madrid, default_region: ES}
channels:
  - {key: mail, type: email, provider: smtp, from: "citas@acme.test", credentials: {host: "192.168.1.25", port: 25}}
  - {key: sms, type: sms, provider: twilio, from: "+34910000001", api_base: "http://127.0.0.1:9", credentials: {account_sid: AC1, auth_token: t0k}}
webhooks: [{key: crm, url: "http://10.0.0.8/hook"}]
`
	for _, test := range []struct {
		name   string
		policy outbound.Policy
		file   string
		want   []string // problems; none: applied
	}{
		{"default refuses", outbound.Policy{}, file, []string{"channels[1].api_base", "webhooks[0].url"}},
		{"the smtp host arrives with the credentials", outbound.Policy{},
			strings.Replace(strings.Replace(file, "http://127.0.0.1:9", "https://api.twilio.com", 1), "http://10.0.0.8/hook", "https://crm.example/hook", 1),
			[]string{"channels[0].credentials.host"}},
		{"private allowed", outbound.Policy{AllowPrivate: true}, file, nil},
		{"link-local never", outbound.Policy{AllowPrivate: true}, strings.Replace(file, "10.0.0.8", "169.254.169.254", 1), []string{"webhooks[0].url"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
				ap := &workspace.Applier{DB: store, Now: func() time.Time { return now }, Secrets: testBox(t), Targets: test.policy}
				_, err := ap.Apply(context.Background(), []byte(test.file))
				if test.want == nil {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if err == nil {
					t.Fatal("applied")
				}
				for _, field := range test.want {
					if !strings.Contains(err.Error(), field+":") {
						t.Errorf("no problem at %s: %v", field, err)
					}
				}
			})
		})
	}
}
