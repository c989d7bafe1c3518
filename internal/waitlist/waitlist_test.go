package waitlist_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

var now = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// acme provisions the example workspace on store and returns its account
// and ids.
func acme(tb testing.TB, store *db.DB) (account.Account, workspace.IDs) {
	tb.Helper()
	data, err := os.ReadFile("../workspace/testdata/acme.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(context.Background(), data)
	if err != nil {
		tb.Fatal(err)
	}
	acct, err := account.BySlug(context.Background(), store, "acme")
	if err != nil {
		tb.Fatal(err)
	}
	return acct, res.IDs
}

func TestResolveBooked(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, ids := acme(t, store)
		cleaning, maria := ids.Services["cleaning"], ids.Clients["maria"]
		added, err := waitlist.Add(ctx, store, acct, waitlist.AddRequest{ClientID: &maria, ServiceIDs: []int64{cleaning}}, now)
		if err != nil {
			t.Fatal(err)
		}
		entryID := added.Entries[0].ID

		// Another account never resolves acme's entry.
		if id, err := waitlist.ResolveBooked(ctx, store, account.Account{ID: acct.ID + 1000}, maria, cleaning, now); err != nil || id != 0 {
			t.Fatalf("foreign account resolved %d, %v", id, err)
		}
		booked := now.Add(2 * time.Hour)
		id, err := waitlist.ResolveBooked(ctx, store, acct, maria, cleaning, booked)
		if err != nil || id != entryID {
			t.Fatalf("ResolveBooked = %d, %v; want %d", id, err, entryID)
		}
		e, err := waitlist.Get(ctx, store, acct, entryID, booked)
		if err != nil {
			t.Fatal(err)
		}
		if e.Status != waitlist.StatusBooked || e.Position != nil || e.ResolvedAt == nil || !e.ResolvedAt.Equal(time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)) ||
			e.ResolutionReason == nil || *e.ResolutionReason != waitlist.ReasonBooked {
			t.Errorf("booked entry = %+v", e)
		}
		if id, err := waitlist.ResolveBooked(ctx, store, acct, maria, cleaning, booked); err != nil || id != 0 {
			t.Errorf("second booking resolved %d, %v", id, err)
		}

		s, err := waitlist.Summarize(ctx, store, acct, booked)
		if err != nil {
			t.Fatal(err)
		}
		if s.Totals.Booked30d != 1 || s.Totals.WaitingEntries != 0 {
			t.Errorf("totals = %+v", s.Totals)
		}
		if s, _ := waitlist.Summarize(ctx, store, acct, booked.Add(31*24*time.Hour)); s.Totals.Booked30d != 0 {
			t.Errorf("booked_30d a month later = %d", s.Totals.Booked30d)
		}
	})
}

// BenchmarkImportBatch measures the use case alone (no HTTP, no JSON): 500
// new contacts per batch.
func BenchmarkImportBatch(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			acct, ids := acme(b, store)
			list, cleaning := ids.Waitlists["main"], ids.Services["cleaning"]
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				req := waitlist.BatchRequest{WaitlistID: list}
				for r := 0; r < 500; r++ {
					n := i*500 + r
					req.Rows = append(req.Rows, waitlist.ParseRow(r, map[string]any{"phone": fmt.Sprintf("+34613%06d", n),
						"email": fmt.Sprintf("p%d@example.com", n), "service_ids": []any{jsonInt(cleaning)}}, "ES"))
				}
				b.StartTimer()
				res, err := waitlist.ImportBatch(context.Background(), store, acct, req, now)
				if err != nil || res.EntriesCreated != 500 {
					b.Fatalf("batch: %v %+v", err, res)
				}
			}
		})
	}
}

// jsonInt is an integer as the JSON decoder hands it over.
func jsonInt(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
