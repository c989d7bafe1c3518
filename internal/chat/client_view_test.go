package chat_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestClientConversations: the conversations on the client's phone; a
// client without a phone, or another account, has none.
func TestClientConversations(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		data, err := os.ReadFile("../workspace/testdata/acme.yaml")
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(context.Background(), data)
		if err != nil {
			t.Fatal(err)
		}
		acct, err := account.BySlug(t.Context(), store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		maria := res.IDs.Clients["maria"]
		list, err := chat.ClientConversations(t.Context(), store, acct, maria)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].SessionID != res.IDs.Conversations["c1"] || list[0].MessageCount != 4 || list[0].LastMessageAt == nil {
			t.Fatalf("conversations = %+v", list)
		}
		if other, err := chat.ClientConversations(t.Context(), store, account.Account{ID: acct.ID + 1000}, maria); err != nil || len(other) != 0 {
			t.Fatalf("another account sees %d (%v)", len(other), err)
		}
	})
}
