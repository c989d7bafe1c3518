package chat

// Disposition tags, for the conversation filters.

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// DispositionRef is a disposition tag, for the conversation filters.
type DispositionRef struct {
	ID    int64
	Name  string
	Color string
}

// Dispositions lists the account's disposition tags.
func Dispositions(ctx context.Context, q db.Querier, acct account.Account) ([]DispositionRef, error) {
	rows, err := q.Query(ctx, `SELECT id, name, color FROM disposition_tags WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DispositionRef
	for rows.Next() {
		var x DispositionRef
		if err := rows.Scan(&x.ID, &x.Name, &x.Color); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
