package dashboard

// Settings › My preferences: each user's own language.

import (
	"net/http"
	"slices"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// mePage handles "GET /app/settings/me": the user's own language.
func (d *Dashboard) mePage(w http.ResponseWriter, r *http.Request, s *session) error {
	m, err := account.MemberByID(r.Context(), d.db, s.Account, s.UserID)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_team_me", "My preferences", "me", map[string]any{"Member": m})
	return nil
}

// saveMe handles "POST /app/settings/me".
func (d *Dashboard) saveMe(w http.ResponseWriter, r *http.Request, s *session) error {
	lang := r.PostForm.Get("language")
	if !slices.Contains([]string{"", "es", "en"}, lang) {
		return errs.New(errs.ValidationError, "%s", s.Translate("Choose Español, English or the account's language."))
	}
	if err := account.SetLanguage(r.Context(), d.db, s.Account, s.UserID, lang); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/me", "ok", translate(languageOr(lang, s), "Language saved."))
	return nil
}

// languageOr is the language a saved choice shows: the choice, else the
// account's (read on the next page; the flash is in the chosen one when
// there is one).
func languageOr(lang string, s *session) string {
	if lang != "" {
		return lang
	}
	return s.Lang
}
