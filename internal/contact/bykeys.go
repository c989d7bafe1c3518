package contact

import (
	"context"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ByKeys loads the clients a batch's rows can match by phone and by e-mail:
// byPhone keyed by national digits (ByNationals), byEmail by NormEmail with
// the oldest client winning a shared e-mail (as ByEmails).
//
// The phones load whole clients; the e-mails only name their owners (id
// and e-mail), and whole rows are loaded only for owners the phones did not
// bring. A batch of known clients usually reaches each one by both keys,
// and reading its 500 clients twice cost an update batch about a tenth of
// its lookups (docs/performance.md, "Lookups").
//
// Separate statements, deliberately. One UNION ALL of both lookups saves a
// round trip, but PostgreSQL runs it as a Parallel Append (two workers
// started per batch) and a batch of 500 known clients got slower at 100,000
// clients (docs/performance.md); an OR of the two IN lists makes SQLite
// walk the account's clients.
func ByKeys(ctx context.Context, q db.Querier, acct account.Account, nationals, emails []string) (byPhone, byEmail map[string]Client, err error) {
	if byPhone, err = ByNationals(ctx, q, acct, nationals); err != nil {
		return nil, nil, err
	}
	owners, err := emailOwners(ctx, q, acct, emails)
	if err != nil {
		return nil, nil, err
	}
	loaded := make(map[int64]Client, len(byPhone))
	for _, c := range byPhone {
		loaded[c.ID] = c
	}
	var missing []int64
	for _, id := range owners {
		if _, ok := loaded[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		more, err := ByIDs(ctx, q, acct, missing)
		if err != nil {
			return nil, nil, err
		}
		for id, c := range more {
			loaded[id] = c
		}
	}
	byEmail = make(map[string]Client, len(owners))
	for k, id := range owners {
		if c, ok := loaded[id]; ok {
			byEmail[k] = c
		}
	}
	return byPhone, byEmail, nil
}

// emailOwners maps each of these e-mails (by NormEmail) that a client of
// acct has to its oldest such client's id.
func emailOwners(ctx context.Context, q db.Querier, acct account.Account, emails []string) (map[string]int64, error) {
	norm := normEmails(emails)
	out := make(map[string]int64, len(norm))
	err := chunk(norm, func(part []string) error {
		in, args := db.InKeys(part)
		// No ORDER BY, as in ByEmails: the oldest is picked here.
		rows, err := q.Query(ctx, `SELECT c.id, c.email_norm FROM clients c WHERE c.account_id = ? AND c.email_norm IN `+in, append([]any{acct.ID}, args...)...)
		if err != nil {
			return fmt.Errorf("find clients by e-mail: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id int64
				k  string
			)
			if err := rows.Scan(&id, &k); err != nil {
				return err
			}
			if prev, seen := out[k]; !seen || id < prev {
				out[k] = id
			}
		}
		return rows.Err()
	})
	return out, err
}
