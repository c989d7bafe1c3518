package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// The rows of clients a batch creates are written without the conflict
// check (their cards and tag links cannot exist yet), beside those of known
// clients, which keep it: a batch with a new client (named twice: the
// second row is a duplicate) and a known one sharing a tag ends with one
// active card per client and one link per client and tag.
func TestRowsOfNewClientsWithoutConflictChecks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := setupTwoNodes(t, store)
		ctx := context.Background()
		in := &Ingester{DB: store, Wait: time.Minute}
		known := rowsOf(map[string]any{"phone_number": "+34699500001", "first_name": "Known", "tags": tags("vip")})
		if _, err := in.Ingest(ctx, acct, IngestRequest{NodeUUID: webNode, OnDuplicate: OnDuplicateUpdate, Rows: known}, time.Now()); err != nil {
			t.Fatal(err)
		}
		rows := rowsOf(
			map[string]any{"phone_number": "+34699500002", "first_name": "New", "tags": tags("vip", "fair")},
			map[string]any{"phone_number": "+34699500002", "first_name": "New", "last_name": "Again", "tags": tags("vip")},
			map[string]any{"phone_number": "+34699500001", "first_name": "Known", "tags": tags("vip", "fair")},
		)
		res, err := in.Ingest(ctx, acct, IngestRequest{NodeUUID: webNode, OnDuplicate: OnDuplicateUpdate, Rows: rows}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Results[1]; r.Status != StatusFailed || len(r.Errors) == 0 || r.Errors[0].DuplicateOfIndex == nil || *r.Errors[0].DuplicateOfIndex != 0 {
			t.Fatalf("a new client named twice: the second row %+v, want failed as a duplicate of row 0", r)
		}
		for _, i := range []int{0, 2} {
			if r := res.Results[i]; r.Status == StatusFailed || r.ClientID == nil || r.Pipeline.ClientStateID == nil {
				t.Fatalf("row %d: %+v", i, r)
			}
		}
		first := res.Results[0]
		for _, c := range []struct {
			client int64
			links  int
		}{{*first.ClientID, 2}, {*res.Results[2].ClientID, 2}} {
			var cards, links int
			if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM cards WHERE account_id = ? AND client_id = ? AND status = 'active'`, acct.ID, c.client).Scan(&cards); err != nil {
				t.Fatal(err)
			}
			if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM client_tags WHERE account_id = ? AND client_id = ?`, acct.ID, c.client).Scan(&links); err != nil {
				t.Fatal(err)
			}
			if cards != 1 || links != c.links {
				t.Errorf("client %d: %d active cards, %d tag links; want 1 and %d", c.client, cards, links, c.links)
			}
		}
	})
}

func tags(names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = map[string]any{"name": n}
	}
	return out
}
