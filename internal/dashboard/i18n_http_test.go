package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestSpanishAndEnglish: a user without a language of their own sees the
// account's (Spanish for acme), a user who chose English sees English, and
// the sign-in page follows the browser's Accept-Language.
func TestSpanishAndEnglish(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get("/app/pipelines/"+itoa(a.Pipelines["sales"])).must(t, http.StatusOK).
			contains(t, `<html lang="es">`, "Embudos", "Cerrar sesión", "Nodos de entrada de la API", "Crear nodo")
		eva.get("/app/waitlists").must(t, http.StatusOK).contains(t, "Listas de espera", "Ajustes de esta lista")
		eva.get("/app/no-such-page").must(t, http.StatusNotFound).contains(t, "Esa página no existe.")
		ana := h.signedIn("ana@acme.test", "ana-password")
		ana.get("/app/pipelines").must(t, http.StatusOK).contains(t, `<html lang="en">`, "Pipelines", "Sign out")

		for _, test := range []struct{ header, title, wrong string }{
			{"es-ES,es;q=0.9", "Iniciar sesión", "El correo y la contraseña no coinciden"},
			{"en-US,en;q=0.9", "Sign in", "That e-mail and password do not match"},
		} {
			u := h.newUser()
			req, _ := http.NewRequest("GET", h.srv.URL+"/app/login", nil)
			req.Header.Set("Accept-Language", test.header)
			u.do(req).must(t, http.StatusOK).contains(t, test.title)
			form := url.Values{"email": {"eva@acme.test"}, "password": {"wrong-password"}, "csrf_token": {u.csrf}}
			req, _ = http.NewRequest("POST", h.srv.URL+"/app/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept-Language", test.header)
			u.do(req).must(t, http.StatusUnauthorized).contains(t, test.wrong)
		}
	})
}
