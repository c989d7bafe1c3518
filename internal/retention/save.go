package retention

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Save replaces the account's policy (the dashboard's settings; the
// workspace file writes the same column) and returns what changed, one
// "kind: before → after" per kind ("forever" where a kind is not limited);
// nothing when nothing did. A shorter period takes effect at the next run.
func Save(ctx context.Context, tx *db.Tx, acct account.Account, p Policy) ([]string, error) {
	before, err := Load(ctx, tx, acct)
	if err != nil {
		return nil, err
	}
	var changes []string
	for _, k := range Kinds {
		was, now := say(before.Policy, k), say(p, k)
		if was != now {
			changes = append(changes, string(k)+": "+was+" → "+now)
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	_, err = tx.Exec(ctx, `UPDATE accounts SET retention = ? WHERE id = ?`, p.Document(), acct.ID)
	return changes, err
}

func say(p Policy, k Kind) string {
	if per, ok := p[k]; ok {
		return per.String()
	}
	return "forever"
}
