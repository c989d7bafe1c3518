package reports

import (
	"context"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// MaxReasons bounds the reasons listed for failed and suppressed messages
// (the most frequent win).
const MaxReasons = 20

// Messages is the messages section: the outbox rows queued in the period
// (docs/reports.md, Messages).
type Messages struct {
	Total int
	// Channels are the channel types (sms, whatsapp, email, log), each with
	// its messages by status.
	Channels []ChannelCounts
	Statuses []string // every status that occurs, in OutboxStatuses order
	// Reasons are why messages failed or were suppressed, most frequent
	// first.
	Reasons []Reason
}

// ChannelCounts is one channel's messages by status.
type ChannelCounts struct {
	Channel  string
	Total    int
	ByStatus map[string]int
}

// Reason is how many messages of a channel ended in a status for one
// reason (the outbox row's error).
type Reason struct {
	Channel, Status, Reason string
	N                       int
}

// statusOrder is the outbox's statuses in the order a table shows them.
var statusOrder = []string{"pending", "sent", "delivered", "read", "failed", "suppressed", "cancelled"}

// ReadMessages reads the messages section: one GROUP BY over the covering
// index outbox_created, one for the reasons.
func ReadMessages(ctx context.Context, q db.Querier, acct account.Account, f Filter) (Messages, error) {
	var m Messages
	rows, err := q.Query(ctx, `SELECT channel, status, COUNT(*) FROM outbox
		WHERE account_id = ? AND created_at >= ? AND created_at < ? GROUP BY channel, status ORDER BY channel`,
		acct.ID, db.Micros(f.From), db.Micros(f.To))
	if err != nil {
		return m, fmt.Errorf("count messages: %w", err)
	}
	seen := map[string]bool{}
	for rows.Next() {
		var (
			channel, status string
			n               int
		)
		if err := rows.Scan(&channel, &status, &n); err != nil {
			rows.Close()
			return m, err
		}
		if len(m.Channels) == 0 || m.Channels[len(m.Channels)-1].Channel != channel {
			m.Channels = append(m.Channels, ChannelCounts{Channel: channel, ByStatus: map[string]int{}})
		}
		c := &m.Channels[len(m.Channels)-1]
		c.ByStatus[status] += n
		c.Total += n
		m.Total += n
		seen[status] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return m, err
	}
	for _, s := range statusOrder {
		if seen[s] {
			m.Statuses = append(m.Statuses, s)
			delete(seen, s)
		}
	}
	for s := range seen { // a status this list does not know yet
		m.Statuses = append(m.Statuses, s)
	}
	rows, err = q.Query(ctx, `SELECT channel, status, COALESCE(error, ''), COUNT(*) FROM outbox
		WHERE account_id = ? AND created_at >= ? AND created_at < ? AND status IN ('failed', 'suppressed')
		GROUP BY channel, status, COALESCE(error, '') ORDER BY COUNT(*) DESC, channel, status, COALESCE(error, '') LIMIT ?`,
		acct.ID, db.Micros(f.From), db.Micros(f.To), MaxReasons)
	if err != nil {
		return m, fmt.Errorf("count reasons: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Reason
		if err := rows.Scan(&r.Channel, &r.Status, &r.Reason, &r.N); err != nil {
			return m, err
		}
		m.Reasons = append(m.Reasons, r)
	}
	return m, rows.Err()
}
