package account_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestInvitationOnce: a link creates one user once; the second use, an
// expired link and an unknown one are refused alike; only the hash is kept.
func TestInvitationOnce(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := t.Context()
		acct := newAccount(t, store)
		now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
		var token, late string
		err := store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			if _, token, err = account.Invite(ctx, tx, acct, 0, account.NewInvitation{Email: "nina@acme.test", Role: account.RoleStaff}, now); err != nil {
				return err
			}
			_, late, err = account.Invite(ctx, tx, acct, 0, account.NewInvitation{Email: "late@acme.test", Role: account.RoleOwner}, now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		var stored int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM invitations WHERE token_hash = ?`, account.HashInvitationToken(token)).Scan(&stored)
		if stored != 1 {
			t.Fatal("the token's hash is not what is stored")
		}
		accept := func(tok string, at time.Time) (int64, error) {
			var id int64
			err := store.Transact(ctx, func(tx *db.Tx) error {
				var err error
				_, id, err = account.Accept(ctx, tx, tok, "Nina", "hash", at)
				return err
			})
			return id, err
		}
		id, err := accept(token, now.Add(time.Hour))
		if err != nil || id == 0 {
			t.Fatalf("accept: %d %v", id, err)
		}
		m, err := account.MemberByID(ctx, store, acct, id)
		if err != nil || m.Role != account.RoleStaff || m.Email != "nina@acme.test" || !m.Active || !m.HasPassword {
			t.Fatalf("member %+v %v", m, err)
		}
		for name, tc := range map[string]struct {
			tok string
			at  time.Time
		}{"reused": {token, now.Add(2 * time.Hour)}, "expired": {late, now.Add(account.InvitationTTL)}, "unknown": {"nope", now}} {
			if _, err := accept(tc.tok, tc.at); err != account.ErrInvitationGone {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, err := accept(late, now.Add(account.InvitationTTL-time.Second)); err != nil {
			t.Fatalf("just before expiry: %v", err)
		}
	})
}
