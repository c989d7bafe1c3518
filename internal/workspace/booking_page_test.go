package workspace_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/patients"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const pageFile = `account: {slug: acme, name: Acme, timezone: Europe/Madrid, default_region: ES}
event_types: [{key: visit, name: Visit, color: "#2e7d32"}]
professionals: [{key: p, name: P}]
services:
  - {key: cleaning, name: Cleaning, professionals: [p], event_types: [visit]}
  - {key: physio, name: Physio, professionals: [p], event_types: [visit]}
booking_page: {enabled: true, embed_origins: ["https://Clinica.Example"], services: [cleaning]}
`

// TestBookingPageInWorkspace: booking_page is validated as a whole file,
// applied over the stored settings key by key, and applying it twice
// changes nothing.
func TestBookingPageInWorkspace(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
		ap := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
		for range 2 {
			if _, err := ap.Apply(ctx, []byte(pageFile)); err != nil {
				t.Fatal(err)
			}
		}
		acct, _ := account.BySlug(ctx, store, "acme")
		got, err := patients.LoadSettings(ctx, store, acct)
		if err != nil || !got.Enabled || !got.VerifyPhone || !slices.Equal(got.EmbedOrigins, []string{"https://clinica.example"}) ||
			!slices.Equal(got.Services, []string{"cleaning"}) {
			t.Fatalf("settings = %+v, %v", got, err)
		}
		// A partial file changes what it gives only.
		if _, err := ap.Apply(ctx, []byte("account: {slug: acme}\nbooking_page: {verify_phone: false}\n")); err != nil {
			t.Fatal(err)
		}
		got, _ = patients.LoadSettings(ctx, store, acct)
		if !got.Enabled || got.VerifyPhone || len(got.EmbedOrigins) != 1 || len(got.Services) != 1 {
			t.Fatalf("after a partial file: %+v", got)
		}

		_, err = ap.Apply(ctx, []byte(`account: {slug: acme}
booking_page: {embed_origins: ["https://ok.example", "https://x.example/page", "*"], services: [cleaning, nope]}
`))
		var werr *workspace.Error
		if !errors.As(err, &werr) {
			t.Fatalf("bad page applied: %v", err)
		}
		want := []string{"booking_page.embed_origins[1]", "booking_page.embed_origins[2]", "booking_page.services[1]: unknown service \"nope\""}
		if len(werr.Problems) != len(want) {
			t.Fatalf("problems = %q", werr.Problems)
		}
		for i, p := range werr.Problems {
			if !strings.HasPrefix(p, want[i]) {
				t.Errorf("problem %d = %q, want %s…", i, p, want[i])
			}
		}
	})
}
