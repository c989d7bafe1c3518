package workspace

import (
	"context"
	"strings"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/password"
)

func (ap *applier) users(ctx context.Context) error {
	for _, u := range ap.f.Users {
		var fs fields
		fs.add(u.keys.has("name"), "name", u.Name)
		fs.add(u.keys.has("email"), "email", strings.TrimSpace(u.Email))
		fs.add(u.keys.has("active"), "active", boolOr(u.Active, true))
		fs.add(u.keys.has("role"), "role", strOr(u.Role, "owner"))
		fs.add(u.keys.has("language"), "language", u.Language)
		id, err := ap.upsertFields(ctx, "users", "", ap.owned(u.Key), fs, column("created_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		if u.Password != "" && ap.hash != nil {
			if err := ap.setPassword(ctx, id, u.Password); err != nil {
				return err
			}
		}
		ap.res.IDs.Users[u.Key] = id
	}
	return nil
}

// userProfessionals links each user to the professional the file names
// (users[].professional; null unlinks), once the professionals exist.
func (ap *applier) userProfessionals(ctx context.Context) error {
	for _, u := range ap.f.Users {
		if !u.keys.has("professional") {
			continue
		}
		var pro any
		if u.Professional != nil {
			id, err := ap.idOf(ctx, "professionals", ap.res.IDs.Professionals, *u.Professional)
			if err != nil {
				return err
			}
			pro = id
		}
		if _, err := ap.tx.Exec(ctx, `UPDATE users SET professional_id = ? WHERE account_id = ? AND id = ?`, pro, ap.acct.ID, ap.res.IDs.Users[u.Key]); err != nil {
			return err
		}
	}
	return nil
}

// setPassword changes the user's password only when the file's password
// does not match the stored hash (a bcrypt comparison: the same password
// hashes differently every time), so a re-applied file writes nothing and
// signs nobody out; a changed one goes through account.ChangePassword, which
// ends the user's dashboard sessions.
func (ap *applier) setPassword(ctx context.Context, userID int64, plaintext string) error {
	var current *string
	if err := ap.tx.QueryRow(ctx, `SELECT password_hash FROM users WHERE account_id = ? AND id = ?`, ap.acct.ID, userID).Scan(&current); err != nil {
		return err
	}
	if current != nil && password.Matches(*current, plaintext) {
		return nil
	}
	h, err := ap.hash(plaintext)
	if err != nil {
		return err
	}
	return account.ChangePassword(ctx, ap.tx, ap.acct, userID, h)
}
