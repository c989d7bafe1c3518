package workspace_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

func testBox(t *testing.T) *secrets.Box {
	t.Helper()
	box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// With a server key, webhook secrets (webhooks and stage automations) are
// stored sealed, open to the file's plaintext, and a repeated apply writes
// nothing although sealing is randomized. Without a key they are stored as
// they are.
func TestWebhookSecretsAtRest(t *testing.T) {
	data, err := os.ReadFile("testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name   string
		box    *secrets.Box
		sealed bool
	}{
		{"with key", testBox(t), true},
		{"without key", nil, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				ctx := context.Background()
				apply := func(now time.Time, file []byte) {
					t.Helper()
					a := &workspace.Applier{DB: store, Now: func() time.Time { return now }, Secrets: test.box}
					if _, err := a.Apply(ctx, file); err != nil {
						t.Fatal(err)
					}
				}
				now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
				apply(now, data)
				var hook, autos string
				if err := store.QueryRow(ctx, `SELECT secret FROM webhooks WHERE file_key = 'crm'`).Scan(&hook); err != nil {
					t.Fatal(err)
				}
				if err := store.QueryRow(ctx, `SELECT automations FROM stages WHERE file_key = 'new'`).Scan(&autos); err != nil {
					t.Fatal(err)
				}
				for what, stored := range map[string]string{"webhooks.secret": hook, "stages.automations": autos} {
					if got := !strings.Contains(stored, "s3cret") && strings.Contains(stored, secrets.Prefix); got != test.sealed {
						t.Errorf("%s = %q, sealed %v, want %v", what, stored, got, test.sealed)
					}
				}
				if open, err := test.box.Open(hook); err != nil || open != "s3cret" {
					t.Errorf("stored secret opens to %q, %v", open, err)
				}
				before := snapshot(t, store)
				apply(now.Add(time.Hour), data)
				if after := snapshot(t, store); after != before {
					t.Errorf("a repeated apply rewrote the store:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				// Without the key, a server refuses to replace a sealed secret
				// (it cannot tell whether it changed) instead of storing it in
				// plaintext; with it, plaintext stored before is sealed.
				other := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
				if test.box == nil {
					other.Secrets = testBox(t)
				}
				_, err := other.Apply(ctx, data)
				switch {
				case test.box != nil && (err == nil || !strings.Contains(err.Error(), "FRONTDESK_SECRET_KEY is not set")):
					t.Errorf("apply without the key over sealed secrets: %v", err)
				case test.box != nil && !errors.As(err, new(*workspace.Error)):
					// A validation error (400 over the admin route), never a 500.
					t.Errorf("apply without the key over sealed secrets: %T is not a *workspace.Error", err)
				case test.box == nil && err != nil:
					t.Errorf("apply with a key over plaintext secrets: %v", err)
				case test.box == nil:
					var upgraded string
					store.QueryRow(ctx, `SELECT secret FROM webhooks WHERE file_key = 'crm'`).Scan(&upgraded)
					if !secrets.IsSealed(upgraded) {
						t.Errorf("plaintext secret not sealed once a key is set: %q", upgraded)
					}
					return
				}
				// A changed secret is written (sealed again).
				apply(now.Add(2*time.Hour), []byte("account: {slug: acme}\nwebhooks: [{key: crm, secret: other}]"))
				var changed string
				store.QueryRow(ctx, `SELECT secret FROM webhooks WHERE file_key = 'crm'`).Scan(&changed)
				if open, err := test.box.Open(changed); err != nil || open != "other" || changed == hook {
					t.Errorf("changed secret stored as %q (opens to %q, %v)", changed, open, err)
				}
			})
		})
	}
}
