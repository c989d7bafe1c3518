// Package managelink makes the manage link of an appointment
// (docs/manage-links.md): `{public URL}/m/{token}`, where the token is
// derived from the account, the appointment and FRONTDESK_SECRET_KEY, so
// the same appointment always gets the same link and only the SHA-256
// digest of the token is stored (a copy of the database alone reveals no
// link). It is a leaf below jobs, so the texts that carry the link
// (confirmation requests, reminders) and the manage area make it one way.
//
// The public URL and the key reach it as configuration carried by the
// context (WithConfig): links are made deep inside booking transactions
// started by every front door and the job worker, whose signatures must
// not all grow a parameter for one line of text. The process wiring sets
// it once per door (httpapi's root handler, the worker's context).
package managelink

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// Config is what links need from the process: the public base URL
// (FRONTDESK_PUBLIC_URL) and the server key (FRONTDESK_SECRET_KEY).
type Config struct {
	PublicURL string
	Secrets   *secrets.Box
}

// Lifetime is how long after an appointment's end its link still opens.
const Lifetime = 7 * 24 * time.Hour

// tokenBytes is the token's length before encoding: 192 bits, 32 URL-safe
// characters.
const tokenBytes = 24

// purpose separates these tokens from anything else derived from the key.
const purpose = "manage-link"

type configKey struct{}

// WithConfig returns ctx carrying cfg.
func WithConfig(ctx context.Context, cfg Config) context.Context {
	return context.WithValue(ctx, configKey{}, cfg)
}

// ConfigFrom is the Config ctx carries (the zero Config when none).
func ConfigFrom(ctx context.Context) Config {
	cfg, _ := ctx.Value(configKey{}).(Config)
	return cfg
}

// Token derives the token of an appointment's link. Without a key there is
// none (secrets.ErrNoKey).
func Token(box *secrets.Box, accountID, appointmentID int64) (string, error) {
	sum, err := box.Derive(purpose, []byte(strconv.FormatInt(accountID, 10)+"/"+strconv.FormatInt(appointmentID, 10)))
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sum[:tokenBytes]), nil
}

// Digest is what the database keeps of a token.
func Digest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Issue derives the token of an appointment of acct and records its digest
// (once), so that the token opens the appointment from then on. ok is
// false when ctx carries no key: then there is no link.
func Issue(ctx context.Context, q db.Querier, acct account.Account, appointmentID int64, now time.Time) (token string, ok bool, err error) {
	cfg := ConfigFrom(ctx)
	if !cfg.Secrets.HasKey() {
		return "", false, nil
	}
	token, err = Token(cfg.Secrets, acct.ID, appointmentID)
	if err != nil {
		return "", false, err
	}
	if _, err := q.Exec(ctx, `INSERT INTO manage_links (digest, account_id, appointment_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, Digest(token), acct.ID, appointmentID, db.Micros(now)); err != nil {
		return "", false, err
	}
	return token, true, nil
}

// URL is the manage link of an appointment of acct, `{public URL}/m/{token}`,
// recording its digest; "" when no public URL or no key is configured.
func URL(ctx context.Context, q db.Querier, acct account.Account, appointmentID int64) (string, error) {
	base := strings.TrimRight(ConfigFrom(ctx).PublicURL, "/")
	if base == "" {
		return "", nil
	}
	token, ok, err := Issue(ctx, q, acct, appointmentID, time.Now())
	if err != nil || !ok {
		return "", err
	}
	return base + "/m/" + token, nil
}

// Lookup finds the appointment a token names: its account and id. ok is
// false for a token that was never issued (or is malformed).
func Lookup(ctx context.Context, q db.Querier, token string) (accountID, appointmentID int64, ok bool, err error) {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return 0, 0, false, nil
	}
	err = q.QueryRow(ctx, `SELECT account_id, appointment_id FROM manage_links WHERE digest = ?`, Digest(token)).Scan(&accountID, &appointmentID)
	if db.IsNoRows(err) {
		return 0, 0, false, nil
	}
	return accountID, appointmentID, err == nil, err
}
