package dashboard

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

type keysView struct {
	Keys []account.Key
	// NewKey is the plaintext of a key created by this request: shown once.
	NewKey, NewName string
	Error           string
}

func (keysView) isPage() {}

// keysPage handles "GET /app/keys".
func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return d.renderKeys(w, r, s, http.StatusOK, keysView{})
}

func (d *Dashboard) renderKeys(w http.ResponseWriter, r *http.Request, s *session, status int, v keysView) error {
	keys, err := account.ListKeys(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	v.Keys = keys
	d.render(w, r, s, status, "keys", "API keys", "keys", v)
	return nil
}

// createKey handles "POST /app/keys". The new key is rendered in this
// response only (no redirect, no cookie): it is never stored in plaintext
// and never shown again.
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, s *session) error {
	name, err := account.KeyName(r.PostForm.Get("name"))
	if err != nil {
		return err
	}
	now := d.clock.Now()
	if name == "" {
		name = "dashboard-" + now.In(s.Account.Location()).Format("20060102-150405")
	}
	var expires time.Time
	if v := strings.TrimSpace(r.PostForm.Get("expires_on")); v != "" {
		day, ok := calendar.ParseDate(v, s.Account.Location())
		if !ok {
			return errs.New(errs.ValidationError, "The expiry date must be a date (YYYY-MM-DD).")
		}
		// The key works through the whole chosen day.
		expires = day.AddDate(0, 0, 1)
		if !expires.After(now) {
			return errs.New(errs.ValidationError, "The expiry date must be in the future.")
		}
	}
	var plain string
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		var err error
		plain, err = account.InsertKey(r.Context(), tx, s.Account, account.NewKey{Name: name, ExpiresAt: expires}, now)
		if err != nil {
			return err
		}
		summary := "name " + name
		if !expires.IsZero() {
			summary += "; expires " + expires.Format(time.RFC3339)
		}
		return audit.Record(r.Context(), tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, "created", "api_key", name, summary, now)
	})
	if err != nil {
		return err
	}
	d.logger(r.Context()).Info("dashboard: API key created", "account_id", s.Account.ID, "user_id", s.UserID, "name", name)
	return d.renderKeys(w, r, s, http.StatusOK, keysView{NewKey: plain, NewName: name})
}

// revokeKey handles "POST /app/keys/revoke".
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PostForm.Get("name")
	if utf8.RuneCountInString(name) > account.MaxKeyNameLen {
		return errs.New(errs.NotFound, "no active key named %q", name)
	}
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		if _, err := account.RevokeKey(r.Context(), tx, s.Account, name, d.clock.Now()); err != nil {
			return "", "", "", "", err
		}
		return "revoked", "api_key", name, "name " + name, nil
	})
	if err != nil {
		return err
	}
	d.logger(r.Context()).Info("dashboard: API key revoked", "account_id", s.Account.ID, "user_id", s.UserID, "name", name)
	d.redirect(w, r, Prefix+"keys", "ok", s.Translate("Key “%s” revoked. Requests with it are refused within a second.", name))
	return nil
}
