package jobs

import (
	"context"
	"strings"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Outbox statuses (docs/contract.md, Internal effects). A cancelled message was
// withdrawn before it was due (a rescheduled or cancelled appointment).
const (
	StatusPending    = "pending"
	StatusSent       = "sent"
	StatusDelivered  = "delivered"
	StatusRead       = "read"
	StatusFailed     = "failed"
	StatusSuppressed = "suppressed"
	StatusCancelled  = "cancelled"
)

// OutboxStatuses lists every status an outbox message can have, in the
// order a message moves through them.
var OutboxStatuses = []string{StatusPending, StatusSent, StatusDelivered, StatusRead, StatusFailed, StatusSuppressed, StatusCancelled}

// OutboxFilter narrows an outbox listing; an empty field matches every
// message. ChannelKey is the key of the channel the message went (or goes)
// through.
type OutboxFilter struct {
	Kind       string
	Status     string
	ChannelKey string
}

// ListOutboxFiltered lists an account's outbox messages matching f, newest
// first, at most limit of them. The filter is part of the query, so the
// limit applies to matching messages only.
func ListOutboxFiltered(ctx context.Context, q db.Querier, acct account.Account, f OutboxFilter, limit int) ([]Message, error) {
	where, args := []string{"account_id = ?"}, []any{acct.ID}
	if f.Kind != "" {
		where, args = append(where, "kind = ?"), append(args, f.Kind)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, f.Status)
	}
	if f.ChannelKey != "" {
		where, args = append(where, "channel_key = ?"), append(args, f.ChannelKey)
	}
	rows, err := q.Query(ctx, selectMessage+` FROM outbox WHERE `+strings.Join(where, " AND ")+` ORDER BY id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
