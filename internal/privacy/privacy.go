// Package privacy answers a client's data-rights requests
// (docs/data-rights.md): Export writes everything the account holds about
// one client as one JSON document, Erase removes the client's personal
// data for good. Every front door (the CLI, the dashboard) calls these two
// rules, so each answers the same way with the same effects.
package privacy

import (
	"context"
	"database/sql"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// subject is the client a request is about, with what finds their records
// outside the clients table: the phone (conversations, messages sent, codes)
// and the e-mail.
type subject struct {
	client   contact.Client
	erasedAt *time.Time
	e164     string // "" without a phone
	national string
	email    string
}

// loadSubject loads the account's client id, or NOT_FOUND (another
// account's client is unknown here).
func loadSubject(ctx context.Context, q db.Querier, acct account.Account, id int64) (subject, error) {
	c, err := contact.GetClient(ctx, q, acct, id)
	if err != nil {
		return subject{}, err
	}
	s := subject{client: c, email: c.Email}
	if !c.Phone.IsZero() {
		s.e164, s.national = c.Phone.E164(), c.Phone.National
	}
	s.erasedAt, err = ErasedAt(ctx, q, acct, id)
	return s, err
}

// ErasedAt says when the account's client id was erased (nil: never), for
// the doors that show an erased client as such.
func ErasedAt(ctx context.Context, q db.Querier, acct account.Account, id int64) (*time.Time, error) {
	var erased sql.NullInt64
	err := q.QueryRow(ctx, `SELECT erased_at FROM clients WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&erased)
	if err != nil || !erased.Valid {
		if db.IsNoRows(err) {
			err = nil
		}
		return nil, err
	}
	t := db.Time(erased.Int64)
	return &t, nil
}
