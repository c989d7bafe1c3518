package pipeline_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

// TestClientCards: a client's cards, active first, with pipeline and stage
// names; another account sees none.
func TestClientCards(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		acct, ids := workspacetest.Apply(t, store, now, "../workspace/testdata/acme.yaml")
		maria := ids.Clients["maria"]
		cards, err := pipeline.ClientCards(t.Context(), store, acct, maria)
		if err != nil {
			t.Fatal(err)
		}
		if len(cards) != 1 || cards[0].PipelineName != "Sales" || cards[0].StageName != "New" || cards[0].Status != "active" ||
			cards[0].PipelineID != ids.Pipelines["sales"] || cards[0].RemovedAt != nil {
			t.Fatalf("cards = %+v", cards)
		}
		// Removed from the board: still listed, as removed.
		if _, err := pipeline.RemoveClients(t.Context(), store, acct, ids.Pipelines["sales"], []int64{maria}, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		cards, err = pipeline.ClientCards(t.Context(), store, acct, maria)
		if err != nil || len(cards) != 1 || cards[0].Status != "removed" || cards[0].RemovedAt == nil {
			t.Fatalf("after removal: %+v, %v", cards, err)
		}
		if other, err := pipeline.ClientCards(t.Context(), store, account.Account{ID: acct.ID + 1000}, maria); err != nil || len(other) != 0 {
			t.Fatalf("another account sees %d cards (%v)", len(other), err)
		}
	})
}
