package account

import (
	"context"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/db"
)

// Language is acct's language as stored (es, en): the language of its
// patients' messages and pages (a manage link opens without the booking
// page, which also says it).
func Language(ctx context.Context, q db.Querier, acct Account) (string, error) {
	var lang string
	if err := q.QueryRow(ctx, `SELECT language FROM accounts WHERE id = ?`, acct.ID).Scan(&lang); err != nil {
		return "", fmt.Errorf("account language: %w", err)
	}
	return lang, nil
}
