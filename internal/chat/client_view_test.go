package chat_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

// TestClientConversations: the conversations on the client's phone; a
// client without a phone, or another account, has none.
func TestClientConversations(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		acct, ids := workspacetest.Apply(t, store, now, "../workspace/testdata/acme.yaml")
		maria := ids.Clients["maria"]
		list, err := chat.ClientConversations(t.Context(), store, acct, maria)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].SessionID != ids.Conversations["c1"] || list[0].MessageCount != 4 || list[0].LastMessageAt == nil {
			t.Fatalf("conversations = %+v", list)
		}
		if other, err := chat.ClientConversations(t.Context(), store, account.Account{ID: acct.ID + 1000}, maria); err != nil || len(other) != 0 {
			t.Fatalf("another account sees %d (%v)", len(other), err)
		}
	})
}
