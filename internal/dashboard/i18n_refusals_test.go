package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// An area's refusal with a value in it reaches a Spanish page in Spanish,
// the value in its place, and an English page in English.
func TestAreaRefusalsInTheReadersLanguage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		for _, tc := range []struct {
			email, password, want string
		}{
			{"eva@acme.test", "eva-password", "sara@acme.test ya es miembro del equipo."},
			{"ana@acme.test", "ana-password", "sara@acme.test is already a member of the team."},
		} {
			u := h.signedIn(tc.email, tc.password)
			u.post("/app/settings/team/invitations", url.Values{"email": {"sara@acme.test"}, "role": {"staff"}}).must(t, http.StatusSeeOther)
			u.get("/app/settings/team").must(t, http.StatusOK).contains(t, tc.want)
		}
	})
}
