package contact

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ByKeys is ByNationals and ByEmails in one query: a batch matches its rows
// by phone and by e-mail, and one statement over both indexes costs one
// round trip instead of two. The maps are the same as the two functions':
// byPhone keyed by national digits, byEmail by NormEmail with the oldest
// client winning a shared e-mail.
func ByKeys(ctx context.Context, q db.Querier, acct account.Account, nationals, emails []string) (byPhone, byEmail map[string]Client, err error) {
	norm := make([]string, 0, len(emails))
	for _, e := range emails {
		norm = append(norm, NormEmail(e))
	}
	nationals, norm = dedupe(nationals), dedupe(norm)
	if len(nationals) == 0 || len(norm) == 0 || len(nationals)+len(norm) > 1000 {
		// One list alone, or lists longer than one statement's share of
		// parameters: the single-key lookups (which chunk).
		if byPhone, err = ByNationals(ctx, q, acct, nationals); err != nil {
			return nil, nil, err
		}
		byEmail, err = ByEmails(ctx, q, acct, norm)
		return byPhone, byEmail, err
	}
	wantPhone := make(map[string]bool, len(nationals))
	for _, n := range nationals {
		wantPhone[n] = true
	}
	wantEmail := make(map[string]bool, len(norm))
	for _, e := range norm {
		wantEmail[e] = true
	}
	found, err := byKeys(ctx, q, acct, nationals, norm)
	if err != nil {
		return nil, nil, err
	}
	byPhone = make(map[string]Client, len(found))
	byEmail = make(map[string]Client, len(found))
	for _, c := range found {
		if c.Phone.National != "" && wantPhone[c.Phone.National] {
			byPhone[c.Phone.National] = c
		}
		if k := NormEmail(c.Email); k != "" && wantEmail[k] {
			if prev, seen := byEmail[k]; !seen || c.ID < prev.ID {
				byEmail[k] = c
			}
		}
	}
	return byPhone, byEmail, nil
}

// byKeys runs the lookup: a UNION ALL of the two key lookups, not an OR
// (SQLite's planner walks the account's clients for an OR of two IN
// lists). A client found by both arms comes twice and lands once.
func byKeys(ctx context.Context, q db.Querier, acct account.Account, nationals, emails []string) ([]Client, error) {
	inPhones, phoneArgs := db.In(nationals)
	inEmails, emailArgs := db.In(emails)
	args := make([]any, 0, 2+len(phoneArgs)+len(emailArgs))
	args = append(append(append(append(args, acct.ID), phoneArgs...), acct.ID), emailArgs...)
	return query(ctx, q, `c.account_id = ? AND c.phone_national IN `+inPhones+`
		UNION ALL SELECT `+Columns+` FROM clients c WHERE c.account_id = ? AND c.email_norm IN `+inEmails, args...)
}
