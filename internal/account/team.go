package account

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Member is a user of the account as the team page shows it.
type Member struct {
	ID          int64
	Name, Email string
	Role        string // RoleOwner or RoleStaff
	Language    string // "" (the account's), "es" or "en"
	Active      bool
	HasPassword bool
	CreatedAt   time.Time
}

// ListMembers lists the account's users, active first, then by name.
func ListMembers(ctx context.Context, q db.Querier, acct Account) ([]Member, error) {
	rows, err := q.Query(ctx, `SELECT id, name, email, role, language, active, password_hash IS NOT NULL, created_at
		FROM users WHERE account_id = ? ORDER BY active DESC, name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		var at int64
		if err := rows.Scan(&m.ID, &m.Name, &m.Email, &m.Role, &m.Language, &m.Active, &m.HasPassword, &at); err != nil {
			return nil, err
		}
		m.CreatedAt = db.Time(at)
		out = append(out, m)
	}
	return out, rows.Err()
}

// MemberByID loads one of the account's users; another account's id is
// NOT_FOUND like an unknown one.
func MemberByID(ctx context.Context, q db.Querier, acct Account, id int64) (Member, error) {
	var m Member
	var at int64
	err := q.QueryRow(ctx, `SELECT id, name, email, role, language, active, password_hash IS NOT NULL, created_at
		FROM users WHERE account_id = ? AND id = ?`, acct.ID, id).
		Scan(&m.ID, &m.Name, &m.Email, &m.Role, &m.Language, &m.Active, &m.HasPassword, &at)
	if db.IsNoRows(err) {
		return Member{}, errs.New(errs.NotFound, "no user %d", id)
	}
	m.CreatedAt = db.Time(at)
	return m, err
}

// ValidRole reports whether role is one of Roles.
func ValidRole(role string) bool { return role == RoleOwner || role == RoleStaff }

// activeOwners counts the account's active owners other than except.
func activeOwners(ctx context.Context, q db.Querier, acct Account, except int64) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE account_id = ? AND role = ? AND active = ? AND id <> ?`,
		acct.ID, RoleOwner, true, except).Scan(&n)
	return n, err
}

// SetRole gives the account's user id the role, for the user actor. Nobody
// changes their own role (an owner cannot lock themself out by a slip), and
// the account always keeps an active owner. It returns the member as it
// was before the change; an unchanged role changes nothing.
func SetRole(ctx context.Context, tx *db.Tx, acct Account, actor, id int64, role string) (Member, error) {
	if !ValidRole(role) {
		return Member{}, errs.New(errs.ValidationError, "Choose a role: owner or staff.")
	}
	m, err := MemberByID(ctx, tx, acct, id)
	if err != nil {
		return Member{}, err
	}
	if m.Role == role {
		return m, nil
	}
	if id == actor {
		return Member{}, errs.New(errs.ValidationError, "You cannot change your own role: ask another owner.")
	}
	if m.Role == RoleOwner && m.Active {
		n, err := activeOwners(ctx, tx, acct, id)
		if err != nil {
			return Member{}, err
		}
		if n == 0 {
			return Member{}, errs.New(errs.ValidationError, "The account needs at least one active owner.")
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET role = ? WHERE account_id = ? AND id = ?`, role, acct.ID, id); err != nil {
		return Member{}, fmt.Errorf("set role: %w", err)
	}
	return m, nil
}

// SetActive deactivates (or reactivates) the account's user id for the
// user actor. A deactivated user cannot sign in and their sessions end.
// Nobody deactivates themself, and the last active owner stays.
func SetActive(ctx context.Context, tx *db.Tx, acct Account, actor, id int64, active bool) (Member, error) {
	m, err := MemberByID(ctx, tx, acct, id)
	if err != nil {
		return Member{}, err
	}
	if m.Active == active {
		return m, nil
	}
	if !active {
		if id == actor {
			return Member{}, errs.New(errs.ValidationError, "You cannot deactivate yourself: ask another owner.")
		}
		if m.Role == RoleOwner {
			n, err := activeOwners(ctx, tx, acct, id)
			if err != nil {
				return Member{}, err
			}
			if n == 0 {
				return Member{}, errs.New(errs.ValidationError, "The account needs at least one active owner.")
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_sessions WHERE account_id = ? AND user_id = ?`, acct.ID, id); err != nil {
			return Member{}, err
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET active = ? WHERE account_id = ? AND id = ?`, active, acct.ID, id); err != nil {
		return Member{}, fmt.Errorf("set active: %w", err)
	}
	return m, nil
}

// SetLanguage sets the user's own dashboard language: "es", "en", or ""
// to follow the account's.
func SetLanguage(ctx context.Context, q db.Querier, acct Account, id int64, lang string) error {
	if lang != "" && lang != "es" && lang != "en" {
		return errs.New(errs.ValidationError, "Choose Español, English or the account's language.")
	}
	res, err := q.Exec(ctx, `UPDATE users SET language = ? WHERE account_id = ? AND id = ?`, lang, acct.ID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.New(errs.NotFound, "no user %d", id)
	}
	return nil
}
