package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestIngestHTTP sends each kind of batch to a real server on loopback: the
// summaries it checks hold (500 created, 500 updated, 225/225/50), so the
// run fails if the server answered anything else, and the database holds
// the clients the batches created.
func TestIngestHTTP(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		res, base := serveBench(t, store)

		rep, err := IngestHTTP(ctx, IngestConfig{BaseURL: base, Key: Key, Node: inputNode, Batches: 1, First: 650_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Kinds) != 3 {
			t.Fatalf("kinds %+v", rep.Kinds)
		}
		for _, k := range rep.Kinds {
			if k.Median <= 0 || k.Max < k.Median {
				t.Errorf("%s: %+v", k.Kind, k)
			}
		}
		// seed 500 + new 2×500 + mixed 2×225 (the failing rows write nothing)
		var n int
		if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE account_id = ? AND first_name = 'Cliente'`, res.Account.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 500+1000+450 {
			t.Errorf("%d clients written, want 1950", n)
		}
		if md := rep.Markdown(); !strings.Contains(md, "| update |") {
			t.Errorf("markdown:\n%s", md)
		}
	})
}
