package calendar

// Reading and saving the rules each level sets, for the dashboard's
// settings (docs/booking-rules.md, "Where each door shows them").

import (
	"context"
	"fmt"
	"slices"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar/bookingrules"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// AccountRuleSet returns the rules the account sets.
func AccountRuleSet(ctx context.Context, q db.Querier, acct account.Account) (RuleSet, error) {
	var doc string
	if err := q.QueryRow(ctx, `SELECT booking_rules FROM accounts WHERE id = ?`, acct.ID).Scan(&doc); err != nil {
		return RuleSet{}, fmt.Errorf("load booking rules: %w", err)
	}
	return bookingrules.Parse(doc), nil
}

// ServiceRuleSet returns the rules a service of the account sets over the
// account's; an unknown service (another account's among them) is
// NOT_FOUND.
func ServiceRuleSet(ctx context.Context, q db.Querier, acct account.Account, serviceID int64) (RuleSet, error) {
	var doc string
	err := q.QueryRow(ctx, `SELECT booking_rules FROM services WHERE account_id = ? AND id = ?`, acct.ID, serviceID).Scan(&doc)
	if db.IsNoRows(err) {
		return RuleSet{}, errs.New(errs.NotFound, "Service %d not found.", serviceID)
	}
	if err != nil {
		return RuleSet{}, fmt.Errorf("load booking rules: %w", err)
	}
	return bookingrules.Parse(doc), nil
}

// SaveAccountRules replaces the rules the account sets with set and
// returns what changed, rule by rule ("min_notice: 2h"; none when nothing
// did), for the audit log.
func SaveAccountRules(ctx context.Context, tx *db.Tx, acct account.Account, set RuleSet) ([]string, error) {
	before, err := AccountRuleSet(ctx, tx, acct)
	if err != nil {
		return nil, err
	}
	changes := ruleChanges(before, set)
	if len(changes) == 0 {
		return nil, nil
	}
	_, err = tx.Exec(ctx, `UPDATE accounts SET booking_rules = ? WHERE id = ?`, set.Document(), acct.ID)
	return changes, err
}

// SaveServiceRules replaces the rules a service sets over the account's
// and returns what changed, as SaveAccountRules.
func SaveServiceRules(ctx context.Context, tx *db.Tx, acct account.Account, serviceID int64, set RuleSet) ([]string, error) {
	before, err := ServiceRuleSet(ctx, tx, acct, serviceID)
	if err != nil {
		return nil, err
	}
	changes := ruleChanges(before, set)
	if len(changes) == 0 {
		return nil, nil
	}
	_, err = tx.Exec(ctx, `UPDATE services SET booking_rules = ? WHERE account_id = ? AND id = ?`, set.Document(), acct.ID, serviceID)
	return changes, err
}

// ruleChanges names each rule whose value differs, as "name: before →
// after" ("unset" where a level does not set it, "none" for a set null).
func ruleChanges(before, after RuleSet) []string {
	was, now := before.Values(), after.Values()
	var out []string
	for _, name := range bookingrules.Names {
		a, aok := was[name]
		b, bok := now[name]
		if aok == bok && fmt.Sprint(a) == fmt.Sprint(b) {
			continue
		}
		out = append(out, name+": "+ruleValue(a, aok)+" → "+ruleValue(b, bok))
	}
	return slices.Clip(out)
}

func ruleValue(v any, set bool) string {
	switch {
	case !set:
		return "unset"
	case v == nil:
		return "none"
	}
	return fmt.Sprint(v)
}
