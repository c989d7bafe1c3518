package account

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// SessionIdle and SessionMax bound a dashboard session's idle timeout and
// its whole life (serve --session-idle, --session-max): at least a minute,
// at most 30 days idle and a year in all.
var (
	SessionIdle = clock.Range{Min: time.Minute, Max: 30 * 24 * time.Hour}
	SessionMax  = clock.Range{Min: time.Minute, Max: 365 * 24 * time.Hour}
)

// Session is a dashboard user's signed-in session, found by the hash of its
// cookie's token.
type Session struct {
	ID                    int64
	Account               Account
	UserID                int64
	UserName, Email, CSRF string
	// Role is the user's (RoleOwner or RoleStaff).
	Role string
	// Language is the dashboard's language for this user: the user's own
	// choice, else the account's ("es" or "en").
	Language          string
	LastSeen, Expires time.Time
	// ProfessionalID is the professional the user is (users.professional_id),
	// 0 for none: a staff user's reports are that professional's.
	ProfessionalID int64
}

// Team roles: an owner may change the account's settings; staff run the
// day (calendar, clients, inbox, boards, waiting lists).
const (
	RoleOwner = "owner"
	RoleStaff = "staff"
)

// Roles lists the roles in the order forms offer them.
var Roles = []string{RoleOwner, RoleStaff}

// SessionByToken loads the session whose token hashes to tokenHash, with
// its user (who must be active) and account; ok is false when there is none.
func SessionByToken(ctx context.Context, q db.Querier, tokenHash string) (s Session, ok bool, err error) {
	var lastSeen, expires int64
	var userLang, accountLang string
	// The session and its account first (both looked up before the account
	// is known), then the user within that account: on Citus each is a
	// one-node read.
	err = q.QueryRow(ctx, `SELECT s.id, s.user_id, s.csrf_token, s.last_seen_at, s.expires_at,
			a.id, a.slug, a.name, a.timezone, a.default_region, a.language
		FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id
		WHERE s.token_hash = ?`, tokenHash).
		Scan(&s.ID, &s.UserID, &s.CSRF, &lastSeen, &expires,
			&s.Account.ID, &s.Account.Slug, &s.Account.Name, &s.Account.Timezone, &s.Account.DefaultRegion, &accountLang)
	if err == nil {
		err = q.QueryRow(ctx, `SELECT name, email, role, language, COALESCE(professional_id, 0) FROM users
			WHERE account_id = ? AND id = ? AND active = ?`, s.Account.ID, s.UserID, true).
			Scan(&s.UserName, &s.Email, &s.Role, &userLang, &s.ProfessionalID)
	}
	if db.IsNoRows(err) {
		return Session{}, false, nil
	}
	if err != nil {
		return Session{}, false, err
	}
	s.LastSeen, s.Expires = db.Time(lastSeen), db.Time(expires)
	s.Language = userLang
	if s.Language == "" {
		s.Language = accountLang
	}
	return s, true, nil
}

// StartSession stores a new session of the account's user, lasting until
// expires, and sweeps the sessions that ended (expired, or idle since before
// idleSince): the one place that adds rows.
func StartSession(ctx context.Context, q db.Querier, accountID, userID int64, tokenHash, csrf string, now, expires, idleSince time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dashboard_sessions (account_id, user_id, token_hash, csrf_token, created_at, last_seen_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, accountID, userID, tokenHash, csrf, db.Micros(now), db.Micros(now), db.Micros(expires))
	if err != nil {
		return fmt.Errorf("start session: %w", err)
	}
	q.Exec(ctx, `DELETE FROM dashboard_sessions WHERE expires_at <= ? OR last_seen_at <= ?`, db.Micros(now), db.Micros(idleSince))
	return nil
}

// TouchSession records activity on a session (what its idle timeout counts
// from).
func TouchSession(ctx context.Context, q db.Querier, id int64, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE dashboard_sessions SET last_seen_at = ? WHERE id = ?`, db.Micros(now), id)
	return err
}

// EndSession deletes a session, so a copied cookie stops working too.
func EndSession(ctx context.Context, q db.Querier, id int64) error {
	_, err := q.Exec(ctx, `DELETE FROM dashboard_sessions WHERE id = ?`, id)
	return err
}

// Credential is an active user who may sign in with a password.
type Credential struct {
	UserID, AccountID int64
	PasswordHash      string
}

// Credentials lists (at most 20) active users with a password whose e-mail
// is emailNorm (lower-case), in one workspace when slug is given: an e-mail
// may belong to users of several.
func Credentials(ctx context.Context, q db.Querier, emailNorm, slug string) ([]Credential, error) {
	stmt := `SELECT u.id, u.account_id, u.password_hash FROM users u JOIN accounts a ON a.id = u.account_id
		WHERE LOWER(u.email) = ? AND u.active = ? AND u.password_hash IS NOT NULL`
	args := []any{emailNorm, true}
	if slug != "" {
		stmt += ` AND a.slug = ?`
		args = append(args, slug)
	}
	rows, err := q.Query(ctx, stmt+` ORDER BY u.id LIMIT 20`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Credential
	for rows.Next() {
		var c Credential
		if err := rows.Scan(&c.UserID, &c.AccountID, &c.PasswordHash); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
