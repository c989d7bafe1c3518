package jobs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

func box(t *testing.T, key string) *secrets.Box {
	t.Helper()
	b, err := secrets.New([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Webhook secrets sealed at rest stay sealed in the stored rows and job
// payloads, and deliveries (stage automations and account webhooks) are
// still signed with the plaintext. A worker with another key fails the
// delivery with a clear error that does not hold the secret.
func TestSealedWebhookSecrets(t *testing.T) {
	key := box(t, "0123456789abcdef0123456789abcdef")
	for _, test := range []struct {
		name         string
		apply, work  *secrets.Box
		sealed, sent bool
	}{
		{"no key", nil, nil, false, true},
		{"key", key, key, true, true},
		{"worker without the key", key, nil, true, false},
		{"worker with another key", key, box(t, "fedcba9876543210fedcba9876543210"), true, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				ctx := context.Background()
				e := setupWith(t, store, test.apply, test.work)
				e.ingest(t, []string{"+34611000001"}, nil) // the stage's webhook automation
				if err := store.Transact(ctx, func(tx *db.Tx) error {
					return jobs.Emit(ctx, tx, e.acct, e.clock.Now(), jobs.Event{Type: jobs.EventAppointmentBooked, SourceID: 7, Data: map[string]any{"id": 7}})
				}); err != nil {
					t.Fatal(err)
				}
				e.drain(t)

				var stored []string
				for _, q := range []string{`SELECT secret FROM webhooks`, `SELECT automations FROM stages`, `SELECT payload FROM jobs`} {
					rows, err := store.Query(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					for rows.Next() {
						var v string
						rows.Scan(&v)
						stored = append(stored, v)
					}
					rows.Close()
				}
				all := strings.Join(stored, "\n")
				if got := strings.Contains(all, "s3cret"); got == test.sealed {
					t.Errorf("plaintext secret stored = %v, want %v:\n%s", got, !test.sealed, all)
				}

				if !test.sent {
					if n := len(e.sigs); n != 0 || e.hits.Load() != 0 {
						t.Fatalf("deliveries without an open secret reached the receiver: %d", e.hits.Load())
					}
					var lastErr string
					store.QueryRow(ctx, `SELECT last_error FROM jobs WHERE kind = ? ORDER BY id LIMIT 1`, jobs.KindWebhookDelivery).Scan(&lastErr)
					if !strings.Contains(lastErr, "cannot open its signing secret") || strings.Contains(lastErr, "s3cret") {
						t.Errorf("last_error = %q", lastErr)
					}
					return
				}
				if n := len(e.sigs); n != 2 {
					t.Fatalf("signed deliveries = %d, want 2 (automation and account webhook)", n)
				}
				for i := 0; i < 2; i++ {
					sig, body, _ := strings.Cut(<-e.sigs, "|")
					if sig != jobs.Sign("s3cret", []byte(body), e.clock.Now()) {
						t.Errorf("delivery %d: signature %q does not match the plaintext secret", i, sig)
					}
				}
			})
		})
	}
}
