// Package feeds holds the professionals' private calendar feeds
// (docs/calendar-feeds.md): an iCalendar file per professional that Google
// Calendar, Outlook or Apple Calendar subscribe to, behind an unguessable
// link an owner makes and revokes in the dashboard's settings.
//
// A link's token is 256 random bits, URL-safe; only its SHA-256 is stored,
// so a database dump gives no working link. A professional has at most one
// live link: making a new one replaces the old row, and revoking deletes
// it, so the old link is unknown from the next request on (there is no
// cache). The feed lists the professional's appointments that start from
// Back before now to Ahead after it; cancelled ones are left out, so a
// subscribed calendar drops them at its next refresh.
package feeds

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/ics"
)

// The feed's window around now: appointments starting in [now-Back, now+Ahead).
const (
	Back  = 30 * 24 * time.Hour
	Ahead = 180 * 24 * time.Hour
)

// Refresh is how often the feed asks a subscribed client to read it again
// (clients may wait longer: Google Calendar takes hours).
const Refresh = time.Hour

// MaxEvents bounds one feed: far more than 210 days of one professional's
// appointments.
const MaxEvents = 5000

// tokenBytes is a token's randomness: 256 bits, 43 URL-safe characters.
const tokenBytes = 32

// Window is the span of appointments a feed read at now lists, by start.
func Window(now time.Time) (from, to time.Time) {
	return now.Add(-Back), now.Add(Ahead)
}

// Path is where a token's feed is served; the server's public URL goes
// before it.
func Path(token string) string { return "/ics/" + token + ".ics" }

// hashToken is what is stored of a token.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// wellFormed reports whether token could be one Make gave, so a malformed
// one is refused without a query.
func wellFormed(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// ErrUnknown is an unknown, revoked or malformed token: every door answers
// a bare 404 and says nothing more.
var ErrUnknown = errs.New(errs.NotFound, "Calendar feed not found.")

// Feed is a professional and the state of their feed link, as the
// dashboard's settings list it (never the token: it is not kept).
type Feed struct {
	ProfessionalID   int64
	ProfessionalName string
	Active           bool       // the professional is active
	CreatedAt        *time.Time // when the live link was made; nil: no link
}

// List returns every professional of acct, by name, with their link's state.
func List(ctx context.Context, q db.Querier, acct account.Account) ([]Feed, error) {
	rows, err := q.Query(ctx, `SELECT p.id, p.name, p.active, f.created_at
		FROM professionals p LEFT JOIN calendar_feeds f ON f.account_id = p.account_id AND f.professional_id = p.id
		WHERE p.account_id = ? ORDER BY p.name, p.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("list feeds: %w", err)
	}
	defer rows.Close()
	var out []Feed
	for rows.Next() {
		var (
			f       Feed
			created *int64
		)
		if err := rows.Scan(&f.ProfessionalID, &f.ProfessionalName, &f.Active, &created); err != nil {
			return nil, err
		}
		if created != nil {
			t := db.Time(*created)
			f.CreatedAt = &t
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// professionalName finds one of acct's professionals; another account's is
// not found.
func professionalName(ctx context.Context, q db.Querier, acct account.Account, id int64) (string, error) {
	var name string
	err := q.QueryRow(ctx, `SELECT name FROM professionals WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&name)
	if db.IsNoRows(err) {
		return "", errs.New(errs.NotFound, "Professional %d not found.", id)
	}
	return name, err
}

// Made is a link Make made: its token (shown once, never stored), the
// professional's name, and whether it replaced a live link.
type Made struct {
	Token            string
	ProfessionalName string
	Replaced         bool
}

// Make gives acct's professional a new feed link, replacing the live one
// (which stops working at once). Run it in the transaction of its audit
// entry.
func Make(ctx context.Context, tx *db.Tx, acct account.Account, professionalID int64, now time.Time) (Made, error) {
	name, err := professionalName(ctx, tx, acct, professionalID)
	if err != nil {
		return Made{}, err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM calendar_feeds WHERE account_id = ? AND professional_id = ?`,
		acct.ID, professionalID).Scan(&n); err != nil {
		return Made{}, fmt.Errorf("make feed: %w", err)
	}
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Made{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	if _, err := tx.Exec(ctx, `INSERT INTO calendar_feeds (account_id, professional_id, token_hash, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, professional_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
		acct.ID, professionalID, hashToken(token), db.Micros(now)); err != nil {
		return Made{}, fmt.Errorf("make feed: %w", err)
	}
	return Made{Token: token, ProfessionalName: name, Replaced: n > 0}, nil
}

// Revoke ends the live link of acct's professional at once. It reports the
// professional's name and whether there was a link to end (revoking twice
// is not an error).
func Revoke(ctx context.Context, q db.Querier, acct account.Account, professionalID int64) (name string, revoked bool, err error) {
	if name, err = professionalName(ctx, q, acct, professionalID); err != nil {
		return "", false, err
	}
	res, err := q.Exec(ctx, `DELETE FROM calendar_feeds WHERE account_id = ? AND professional_id = ?`, acct.ID, professionalID)
	if err != nil {
		return "", false, fmt.Errorf("revoke feed: %w", err)
	}
	n, _ := res.RowsAffected()
	return name, n > 0, nil
}

// owner is whose feed a token opens.
type owner struct {
	acct             account.Account
	professionalID   int64
	professionalName string
}

// ownerOf resolves a token to its account and professional.
func ownerOf(ctx context.Context, q db.Querier, token string) (owner, error) {
	if !wellFormed(token) {
		return owner{}, ErrUnknown
	}
	var o owner
	err := q.QueryRow(ctx, `SELECT a.id, a.slug, a.name, p.id, p.name
		FROM calendar_feeds f JOIN accounts a ON a.id = f.account_id
		JOIN professionals p ON p.account_id = f.account_id AND p.id = f.professional_id
		WHERE f.token_hash = ?`, hashToken(token)).Scan(&o.acct.ID, &o.acct.Slug, &o.acct.Name, &o.professionalID, &o.professionalName)
	if db.IsNoRows(err) {
		return owner{}, ErrUnknown
	}
	if err != nil {
		return owner{}, fmt.Errorf("feed: %w", err)
	}
	return o, nil
}

// Calendar is the feed a token opens, read at now: the professional's
// appointments in Window(now), by start, in one query. An unknown or
// revoked token is ErrUnknown.
func Calendar(ctx context.Context, q db.Querier, token string, now time.Time) (ics.Calendar, error) {
	o, err := ownerOf(ctx, q, token)
	if err != nil {
		return ics.Calendar{}, err
	}
	from, to := Window(now)
	rows, err := q.Query(ctx, `SELECT a.id, a.start_at, a.end_at, a.updated_at, s.name, c.first_name, c.last_name
		FROM appointments a JOIN services s ON s.account_id = a.account_id AND s.id = a.service_id JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id
		WHERE a.account_id = ? AND a.professional_id = ? AND a.start_at >= ? AND a.start_at < ? AND a.status <> ?
		ORDER BY a.start_at, a.id LIMIT ?`,
		o.acct.ID, o.professionalID, db.Micros(from), db.Micros(to), calendar.StatusCancelled, MaxEvents)
	if err != nil {
		return ics.Calendar{}, fmt.Errorf("feed: %w", err)
	}
	defer rows.Close()
	cal := ics.Calendar{Name: o.professionalName + " · " + o.acct.Name, Refresh: Refresh}
	for rows.Next() {
		var (
			id, start, end, updated int64
			service, first, last    string
		)
		if err := rows.Scan(&id, &start, &end, &updated, &service, &first, &last); err != nil {
			return ics.Calendar{}, err
		}
		summary := service
		if client := contact.DisplayName(first, last); client != "" {
			summary += " · " + client
		}
		cal.Events = append(cal.Events, ics.Event{UID: ics.AppointmentUID(o.acct.Slug, id), Start: db.Time(start), End: db.Time(end),
			Summary: summary, Updated: db.Time(updated)})
	}
	return cal, rows.Err()
}
