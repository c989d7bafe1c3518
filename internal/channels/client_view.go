package channels

import (
	"context"
	"database/sql"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ChannelConsent is a client's standing on one of the account's channels:
// opted out (messages on it are suppressed) or not, and when that changed.
type ChannelConsent struct {
	ChannelKey string
	Type       string
	Active     bool
	OptedOut   bool
	OptedOutAt *time.Time
	OptedInAt  *time.Time
}

// ClientConsent lists the channels on which the client has a consent
// record (an opt-out, and the opt-in back when there was one), by channel
// key, with the channel's type and whether it is active. A channel missing
// from the list never heard an opt-out: the client receives messages on
// it. A client of another account has no record.
func ClientConsent(ctx context.Context, q db.Querier, acct account.Account, clientID int64) ([]ChannelConsent, error) {
	rows, err := q.Query(ctx, `SELECT ch.file_key, ch.type, ch.active, cc.opted_out, cc.opted_out_at, cc.opted_in_at
		FROM channel_consents cc JOIN channels ch ON ch.id = cc.channel_id AND ch.account_id = cc.account_id
		WHERE cc.account_id = ? AND cc.client_id = ? ORDER BY ch.file_key`, acct.ID, clientID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ChannelConsent
	for rows.Next() {
		var (
			c      ChannelConsent
			oo, oi sql.NullInt64
		)
		if err := rows.Scan(&c.ChannelKey, &c.Type, &c.Active, &c.OptedOut, &oo, &oi); err != nil {
			return nil, err
		}
		if oo.Valid {
			t := db.Time(oo.Int64)
			c.OptedOutAt = &t
		}
		if oi.Valid {
			t := db.Time(oi.Int64)
			c.OptedInAt = &t
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
