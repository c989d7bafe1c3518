package contact

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ByKeys loads the clients a batch's rows can match by phone and by e-mail:
// byPhone keyed by national digits (ByNationals), byEmail by NormEmail with
// the oldest client winning a shared e-mail (ByEmails).
//
// Two statements, deliberately. One UNION ALL of both lookups saves a
// round trip, but PostgreSQL runs it as a Parallel Append (two workers
// started per batch) and a batch of 500 known clients got slower at 100,000
// clients (docs/performance.md); an OR of the two IN lists makes SQLite
// walk the account's clients.
func ByKeys(ctx context.Context, q db.Querier, acct account.Account, nationals, emails []string) (byPhone, byEmail map[string]Client, err error) {
	if byPhone, err = ByNationals(ctx, q, acct, nationals); err != nil {
		return nil, nil, err
	}
	byEmail, err = ByEmails(ctx, q, acct, emails)
	return byPhone, byEmail, err
}
