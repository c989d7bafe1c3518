package chat

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ClientConversations lists a client's conversations (those on the
// client's phone, as the list endpoint's client filter matches them) for
// the client's page: the most recent message first, without messages. A
// client of another account, or without a phone, has none.
func ClientConversations(ctx context.Context, q db.Querier, acct account.Account, clientID int64) ([]Conversation, error) {
	list, _, err := List(ctx, q, acct, Filter{ClientID: clientID, SortBy: "last_message_at", Desc: true, Limit: 100})
	return list, err
}
