package chat

// The dashboard's inbox: which conversations the team has not read.

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// unreadWhere selects the account's open conversations with a client
// message newer than the team last read them (conversation alias c).
const unreadWhere = `c.account_id = ? AND c.status NOT IN ('resolved', 'expired') AND EXISTS (SELECT 1 FROM messages m
	WHERE m.conversation_id = c.id AND m.sender_kind = 'client' AND m.sent_at > COALESCE(c.read_at, 0))`

// UnreadCount is how many open conversations hold a client message the
// team has not read.
func UnreadCount(ctx context.Context, q db.Querier, acct account.Account) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM conversations c WHERE `+unreadWhere, acct.ID).Scan(&n)
	return n, err
}

// MarkRead records that the team read the conversation now. Another
// account's conversation is left alone (and reported as not found by the
// page that shows it).
func MarkRead(ctx context.Context, q db.Querier, acct account.Account, sessionID int64, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE conversations SET read_at = ? WHERE account_id = ? AND id = ?`, db.Micros(now), acct.ID, sessionID)
	return err
}
