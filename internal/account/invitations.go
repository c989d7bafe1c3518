package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

// Invitation is an owner's invitation to join the account's team, accepted
// through a one-time link. Only the SHA-256 of the link's token is stored.
type Invitation struct {
	ID                 int64
	AccountID          int64
	AccountName        string
	Email, Name, Role  string
	InvitedBy          int64
	CreatedAt, Expires time.Time
	AcceptedAt         *time.Time
}

// NewInvitation is what an owner fills in.
type NewInvitation struct {
	Email, Name, Role string
}

// HashInvitationToken is what is stored of a link's token.
func HashInvitationToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Invite stores an invitation and returns it with the token of its link:
// the token is returned once and never stored. An e-mail that already
// belongs to a user of the account is refused.
func Invite(ctx context.Context, tx *db.Tx, acct Account, invitedBy int64, in NewInvitation, now time.Time) (Invitation, string, error) {
	in.Email = strings.TrimSpace(in.Email)
	in.Name = strings.TrimSpace(in.Name)
	if _, ok := valid.Email(in.Email); !ok {
		return Invitation{}, "", errs.New(errs.ValidationError, "Enter the e-mail address of the person to invite.")
	}
	if len(in.Name) > 200 {
		return Invitation{}, "", errs.New(errs.ValidationError, "A name may have at most 200 characters.")
	}
	if !ValidRole(in.Role) {
		return Invitation{}, "", errs.New(errs.ValidationError, "Choose a role: owner or staff.")
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE account_id = ? AND LOWER(email) = ?`, acct.ID, strings.ToLower(in.Email)).Scan(&n); err != nil {
		return Invitation{}, "", err
	}
	if n > 0 {
		return Invitation{}, "", errs.New(errs.ValidationError, "%s is already a member of the team.", in.Email)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Invitation{}, "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	inv := Invitation{AccountID: acct.ID, AccountName: acct.Name, Email: in.Email, Name: in.Name, Role: in.Role, InvitedBy: invitedBy,
		CreatedAt: now, Expires: now.Add(InvitationTTL)}
	err := tx.QueryRow(ctx, `INSERT INTO invitations (account_id, email, name, role, token_hash, invited_by, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, acct.ID, inv.Email, inv.Name, inv.Role, HashInvitationToken(token), invitedBy,
		db.Micros(now), db.Micros(inv.Expires)).Scan(&inv.ID)
	if err != nil {
		return Invitation{}, "", fmt.Errorf("invite: %w", err)
	}
	return inv, token, nil
}

const selectInvitation = `SELECT i.id, i.account_id, a.name, i.email, i.name, i.role, COALESCE(i.invited_by, 0), i.created_at, i.expires_at, i.accepted_at
	FROM invitations i JOIN accounts a ON a.id = i.account_id`

func scanInvitation(row interface{ Scan(...any) error }) (Invitation, error) {
	var inv Invitation
	var created, expires int64
	var accepted *int64
	if err := row.Scan(&inv.ID, &inv.AccountID, &inv.AccountName, &inv.Email, &inv.Name, &inv.Role, &inv.InvitedBy, &created, &expires, &accepted); err != nil {
		return Invitation{}, err
	}
	inv.CreatedAt, inv.Expires = db.Time(created), db.Time(expires)
	if accepted != nil {
		t := db.Time(*accepted)
		inv.AcceptedAt = &t
	}
	return inv, nil
}

// ErrInvitationGone says the same for an unknown, used or expired link, so
// a link tells nothing about others.
var ErrInvitationGone = errs.New(errs.ValidationError, "This invitation link is not valid: it was already used, it expired, or it was withdrawn. Ask an owner for a new one.")

// InvitationByToken finds the open invitation of a link's token: not
// accepted and not expired at now; a validation error otherwise.
func InvitationByToken(ctx context.Context, q db.Querier, token string, now time.Time) (Invitation, error) {
	if token == "" || len(token) > 100 {
		return Invitation{}, ErrInvitationGone
	}
	inv, err := scanInvitation(q.QueryRow(ctx, selectInvitation+` WHERE i.token_hash = ?`, HashInvitationToken(token)))
	if db.IsNoRows(err) {
		return Invitation{}, ErrInvitationGone
	}
	if err != nil {
		return Invitation{}, err
	}
	if inv.AcceptedAt != nil || !now.Before(inv.Expires) {
		return Invitation{}, ErrInvitationGone
	}
	return inv, nil
}

// Accept uses an invitation's link: it creates the user (the invitation's
// e-mail and role, the name given and the password's hash) and marks the
// invitation used, once: a second use, even at the same moment, is
// refused. It returns the invitation and the new user's id.
func Accept(ctx context.Context, tx *db.Tx, token, name, passwordHash string, now time.Time) (Invitation, int64, error) {
	inv, err := InvitationByToken(ctx, tx, token, now)
	if err != nil {
		return Invitation{}, 0, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return Invitation{}, 0, errs.New(errs.ValidationError, "Enter your name (at most 200 characters).")
	}
	res, err := tx.Exec(ctx, `UPDATE invitations SET accepted_at = ? WHERE id = ? AND accepted_at IS NULL`, db.Micros(now), inv.ID)
	if err != nil {
		return Invitation{}, 0, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return Invitation{}, 0, ErrInvitationGone
	}
	var taken int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE account_id = ? AND LOWER(email) = ?`, inv.AccountID, strings.ToLower(inv.Email)).Scan(&taken); err != nil {
		return Invitation{}, 0, err
	}
	if taken > 0 {
		return Invitation{}, 0, errs.New(errs.ValidationError, "%s is already a member of the team: sign in instead.", inv.Email)
	}
	var id int64
	err = tx.QueryRow(ctx, `INSERT INTO users (account_id, file_key, name, email, password_hash, active, created_at, role, language)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, '') RETURNING id`, inv.AccountID, fmt.Sprintf("invited-%d", inv.ID), name, inv.Email, passwordHash, true,
		db.Micros(now), inv.Role).Scan(&id)
	if err != nil {
		return Invitation{}, 0, fmt.Errorf("accept invitation: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE invitations SET accepted_user_id = ? WHERE id = ?`, id, inv.ID); err != nil {
		return Invitation{}, 0, err
	}
	inv.Name = name
	return inv, id, nil
}

// PendingInvitations lists the account's invitations not yet used nor
// expired at now, newest first.
func PendingInvitations(ctx context.Context, q db.Querier, acct Account, now time.Time) ([]Invitation, error) {
	rows, err := q.Query(ctx, selectInvitation+` WHERE i.account_id = ? AND i.accepted_at IS NULL AND i.expires_at > ? ORDER BY i.id DESC`,
		acct.ID, db.Micros(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Invitation
	for rows.Next() {
		inv, err := scanInvitation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}

// WithdrawInvitation deletes an open invitation of the account, so its
// link stops working; another account's id is NOT_FOUND.
func WithdrawInvitation(ctx context.Context, tx *db.Tx, acct Account, id int64) (Invitation, error) {
	inv, err := scanInvitation(tx.QueryRow(ctx, selectInvitation+` WHERE i.account_id = ? AND i.id = ? AND i.accepted_at IS NULL`, acct.ID, id))
	if db.IsNoRows(err) {
		return Invitation{}, errs.New(errs.NotFound, "no invitation %d", id)
	}
	if err != nil {
		return Invitation{}, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM invitations WHERE account_id = ? AND id = ?`, acct.ID, id); err != nil {
		return Invitation{}, err
	}
	return inv, nil
}
