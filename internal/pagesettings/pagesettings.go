// Package pagesettings holds an account's booking page settings
// (docs/patient-api.md): whether patients may book online, whether their
// phone is verified first, which origins may frame the page and which
// services it offers. It sits below the areas and the workspace file, so
// the file format and every door (the patient API, the booking page, the
// dashboard) read and check them through one set of rules.
package pagesettings

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Settings are an account's booking page settings (the workspace file's
// booking_page; docs/patient-api.md). The zero value is a page that is off.
type Settings struct {
	Enabled bool
	// VerifyPhone asks a patient for a code sent to their phone before
	// booking (default true).
	VerifyPhone bool
	// EmbedOrigins may frame the page (scheme://host[:port] each).
	EmbedOrigins []string
	// Services are the keys of the services patients may book; empty is
	// every active service.
	Services []string
}

// DefaultSettings are an account's settings before any are saved.
var DefaultSettings = Settings{VerifyPhone: true}

// MaxEmbedOrigins is the most origins a page may be embedded by.
const MaxEmbedOrigins = 20

// settingsDoc is the stored form (accounts.booking_page): verify_phone is
// absent until set, and then defaults to true.
type settingsDoc struct {
	Enabled      bool     `json:"enabled"`
	VerifyPhone  *bool    `json:"verify_phone,omitempty"`
	EmbedOrigins []string `json:"embed_origins,omitempty"`
	Services     []string `json:"services,omitempty"`
}

// Load reads acct's booking page settings.
func Load(ctx context.Context, q db.Querier, acct account.Account) (Settings, error) {
	var raw string
	if err := q.QueryRow(ctx, `SELECT booking_page FROM accounts WHERE id = ?`, acct.ID).Scan(&raw); err != nil {
		return Settings{}, fmt.Errorf("booking page settings: %w", err)
	}
	return Decode(raw)
}

// Column is the accounts column that holds the settings, for a caller that
// reads them with other columns of the account (then Decode).
const Column = "booking_page"

// Decode reads the stored form of the settings.
func Decode(raw string) (Settings, error) {
	var doc settingsDoc
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &doc); err != nil {
			return Settings{}, fmt.Errorf("booking page settings: %w", err)
		}
	}
	return Settings{Enabled: doc.Enabled, VerifyPhone: doc.VerifyPhone == nil || *doc.VerifyPhone,
		EmbedOrigins: doc.EmbedOrigins, Services: doc.Services}, nil
}

// Save checks and stores acct's booking page settings: every
// origin must be an origin (CheckOrigin) and every service key one of the
// account's services. The origins are stored as CheckOrigin writes them.
func Save(ctx context.Context, q db.Querier, acct account.Account, s Settings) error {
	doc, err := checkSettings(s)
	if err != nil {
		return err
	}
	if len(doc.Services) > 0 {
		known, err := serviceKeys(ctx, q, acct)
		if err != nil {
			return err
		}
		for _, k := range doc.Services {
			if !slices.Contains(known, k) {
				return errs.WithDetails(errs.ValidationError, map[string]any{"field": "services", "value": k},
					"services: %q is not a service of this account.", k)
			}
		}
	}
	text, err := db.JSONText(doc)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `UPDATE accounts SET booking_page = ? WHERE id = ? AND booking_page <> ?`, text, acct.ID, text); err != nil {
		return fmt.Errorf("save booking page settings: %w", err)
	}
	return nil
}

// checkSettings checks what needs no database and returns the stored form.
func checkSettings(s Settings) (settingsDoc, error) {
	if len(s.EmbedOrigins) > MaxEmbedOrigins {
		return settingsDoc{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "embed_origins"},
			"embed_origins: at most %d origins.", MaxEmbedOrigins)
	}
	verify := s.VerifyPhone
	doc := settingsDoc{Enabled: s.Enabled, VerifyPhone: &verify}
	for _, o := range s.EmbedOrigins {
		origin, err := CheckOrigin(o)
		if err != nil {
			return settingsDoc{}, err
		}
		if !slices.Contains(doc.EmbedOrigins, origin) {
			doc.EmbedOrigins = append(doc.EmbedOrigins, origin)
		}
	}
	for _, k := range s.Services {
		k = strings.TrimSpace(k)
		if k != "" && !slices.Contains(doc.Services, k) {
			doc.Services = append(doc.Services, k)
		}
	}
	return doc, nil
}

// CheckOrigin reads an embedding origin: http or https, a host and an
// optional port, nothing else (no path, query, fragment or user). It
// returns the origin in lower case, as browsers compare it.
func CheckOrigin(raw string) (string, error) {
	bad := func() error {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "embed_origins", "value": raw},
			"embed_origins: %q is not an origin such as https://clinic.example or https://clinic.example:8443.", raw)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") || u.Hostname() == "" {
		return "", bad()
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return "", bad()
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", bad()
	}
	if strings.ContainsAny(u.Hostname(), " */\\%") {
		return "", bad()
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// serviceKeys lists the keys of acct's services.
func serviceKeys(ctx context.Context, q db.Querier, acct account.Account) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT file_key FROM services WHERE account_id = ?`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("service keys: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
