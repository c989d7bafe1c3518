package account

import (
	"context"
	"strings"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// ChangePassword is the one way a user's password changes, whatever the
// door (the workspace file, applied by the command line or the admin route;
// frontdesk users set-password): it stores hash as the password of the
// account's user userID and ends every dashboard session of that user, so
// whoever signed in with the old password is signed out. Callers that may
// be handed the same password again (a re-applied workspace file) compare
// it with the stored hash first and do not call it: an unchanged password
// signs nobody out. NOT_FOUND when the account has no such user.
func ChangePassword(ctx context.Context, q db.Querier, acct Account, userID int64, hash string) error {
	res, err := q.Exec(ctx, `UPDATE users SET password_hash = ? WHERE account_id = ? AND id = ?`, hash, acct.ID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.New(errs.NotFound, "no user %d", userID)
	}
	_, err = q.Exec(ctx, `DELETE FROM dashboard_sessions WHERE account_id = ? AND user_id = ?`, acct.ID, userID)
	return err
}

// SetPasswordHash gives the account's user with that e-mail (any case; the
// oldest, should there be several) a new password hash through
// ChangePassword; NOT_FOUND when there is no such user.
func SetPasswordHash(ctx context.Context, store *db.DB, acct Account, email, hash string) error {
	return store.Transact(ctx, func(tx *db.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM users WHERE account_id = ? AND LOWER(email) = ? ORDER BY id LIMIT 1`,
			acct.ID, strings.ToLower(strings.TrimSpace(email))).Scan(&id)
		if db.IsNoRows(err) {
			return errs.New(errs.NotFound, "no user with e-mail %q in workspace %q", email, acct.Slug)
		}
		if err != nil {
			return err
		}
		return ChangePassword(ctx, tx, acct, id, hash)
	})
}
