package dashboard_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// flashText is the flash message of a page.
var flashText = regexp.MustCompile(`<div class="flash [a-z]+" role="[a-z]+">([^<]*)</div>`)

// TestFlashesInSpanish: what an action says after it is done, in a
// Spanish session, is the catalogue's Spanish: never an English text the
// catalogue has a Spanish for (a flash handed on without Translate), and
// no catalogue miss on the way.
func TestFlashesInSpanish(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		status, body := h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
			"phone": "+34600111222", "service_ids": []int64{a.Services["cleaning"]}, "time_preference": "morning"})
		if status != 200 {
			t.Fatalf("add: %d %v", status, body)
		}
		entry := "/app/waitlists/entries/" + itoa(int64(body["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)["id"].(float64)))
		node := "/app/pipelines/" + itoa(a.Pipelines["sales"]) + "/nodes/" + a.InputNodes["sales/web"] + "/active"
		client := "/app/clients/" + itoa(a.Clients["maria"])
		eva := h.signedIn("eva@acme.test", "eva-password")
		misses, stop := dashboard.RecordMisses()
		defer stop()
		for _, test := range []struct {
			path string
			form url.Values
			want string
		}{
			{entry + "/flag", url.Values{"flagged": {"true"}}, "Entrada marcada para revisar."},
			{entry + "/flag", url.Values{"flagged": {"false"}}, "Marca quitada."},
			{entry + "/snooze", url.Values{"until": {"2026-11-30"}}, "Entrada pospuesta hasta el lunes, 30 de noviembre de 2026."},
			{entry + "/remove", nil, "María García ha salido de la lista de espera de Limpieza dental."},
			{node, url.Values{"active": {"false"}}, "Nodo de entrada desactivado: se rechaza lo que llegue por él."},
			{node, url.Values{"active": {"true"}}, "Nodo de entrada activado."},
			{client + "/tags", url.Values{"name": {"vip"}}, ""},
			{client + "/waitlist", url.Values{"service_id": {itoa(a.Services["cleaning"])}, "time_preference": {"morning"}}, ""},
			{"/app/settings/me", url.Values{"language": {""}}, ""},
		} {
			p := eva.follow(eva.post(test.path, test.form)).must(t, http.StatusOK)
			m := flashText.FindStringSubmatch(p.Body)
			if m == nil {
				t.Errorf("POST %s: no flash", test.path)
				continue
			}
			said := html.UnescapeString(m[1])
			if es, ok := locale.Text("es", said); ok && es != said {
				t.Errorf("POST %s flashes English %q (Spanish: %q)", test.path, said, es)
			}
			if test.want != "" && said != test.want {
				t.Errorf("POST %s flashes %q, want %q", test.path, said, test.want)
			}
			if m := misses(); len(m) > 0 {
				t.Errorf("POST %s: no Spanish for %v", test.path, m)
			}
		}
	})
}
