package patients

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/pagesettings"
)

// Settings are an account's booking page settings (package pagesettings,
// which the workspace file reads too).
type Settings = pagesettings.Settings

// DefaultSettings are an account's settings before any are saved.
var DefaultSettings = pagesettings.DefaultSettings

// MaxEmbedOrigins is the most origins a page may be embedded by.
const MaxEmbedOrigins = pagesettings.MaxEmbedOrigins

// LoadSettings reads acct's booking page settings.
func LoadSettings(ctx context.Context, q db.Querier, acct account.Account) (Settings, error) {
	return pagesettings.Load(ctx, q, acct)
}

// SaveSettings checks and stores acct's booking page settings: every origin
// must be an origin (CheckOrigin) and every service key one of the
// account's; the dashboard's settings page calls it.
func SaveSettings(ctx context.Context, q db.Querier, acct account.Account, s Settings) error {
	return pagesettings.Save(ctx, q, acct, s)
}

// CheckOrigin reads an embedding origin (scheme://host[:port]) and returns
// it as browsers compare it.
func CheckOrigin(raw string) (string, error) { return pagesettings.CheckOrigin(raw) }

// loadSettings reads the settings and the account's language in one query.
func loadSettings(ctx context.Context, q db.Querier, acct account.Account) (Settings, string, error) {
	var raw, lang string
	err := q.QueryRow(ctx, `SELECT `+pagesettings.Column+`, language FROM accounts WHERE id = ?`, acct.ID).Scan(&raw, &lang)
	if err != nil {
		return Settings{}, "", err
	}
	s, err := pagesettings.Decode(raw)
	return s, lang, err
}
