package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Ingest's creates and merges store the client's search column, so the
// one client search (docs/patient-search.md) finds what ingest wrote.
func TestIngestStoresSearchText(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct := setupAcme(t, store)
		in := &Ingester{DB: store, Wait: time.Minute}
		for _, test := range []struct {
			name  string
			row   map[string]any
			query string
		}{
			{"created", map[string]any{"phone_number": "+34699222000", "first_name": "Begoña", "last_name": "Ruiz"}, "begona ruiz"},
			{"merged", map[string]any{"phone_number": "+34699222000", "first_name": "Ángela", "last_name": "Núñez", "email": "angela@clinic.test"}, "NUNEZ angela clinic"},
		} {
			t.Run(test.name, func(t *testing.T) {
				if _, err := in.Ingest(ctx, acct, IngestRequest{NodeUUID: webNode, OnDuplicate: OnDuplicateUpdate, Rows: rowsOf(test.row)}, time.Now()); err != nil {
					t.Fatal(err)
				}
				list, _, err := contact.SearchClients(ctx, store, acct, test.query, 10)
				if err != nil || len(list) != 1 || list[0].Phone.National != "699222000" {
					t.Fatalf("SearchClients(%q) = %+v, %v", test.query, list, err)
				}
			})
		}
		if list, _, _ := contact.SearchClients(ctx, store, acct, "begona", 10); len(list) != 0 {
			t.Fatalf("the merged client is still found by her old name: %+v", list)
		}
	})
}
