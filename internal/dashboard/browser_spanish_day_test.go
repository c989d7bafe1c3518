package dashboard_test

import (
	"strings"
	"testing"
)

// TestBrowserSpanishDay walks a receptionist's day in Spanish, as staff:
// Hoy (headed by the long date, "lunes, 23 de noviembre de 2026"),
// Pacientes, a patient, Bandeja and Lista de espera; the main menu holds
// only the reception's screens (no Embudos, no Registro de envíos). Each
// page is screenshotted and passes the accessibility audit, on both
// engines at desktop and phone width.
func TestBrowserSpanishDay(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		if _, err := b.h.store.Exec(b.t.Context(), `UPDATE users SET language = 'es' WHERE email = 'sara@acme.test'`); err != nil {
			b.t.Fatal(err)
		}
		b.signIn("sara@acme.test", "sara-password")
		b.visit("/app/today", ".today-date")
		if got := b.text(".today-date"); got != "lunes, 23 de noviembre de 2026" {
			b.t.Fatalf("Hoy is headed %q, want the long Spanish date", got)
		}
		nav := b.text(`header nav[aria-label="Principal"]`)
		for _, want := range []string{"Hoy", "Pacientes", "Bandeja", "Lista de espera", "Calendario"} {
			if !strings.Contains(nav, want) {
				b.t.Errorf("the menu %q has no %q", nav, want)
			}
		}
		for _, not := range []string{"Embudos", "Registro de envíos", "Ajustes", "Ventas e integraciones"} {
			if strings.Contains(b.text("header.top"), not) {
				b.t.Errorf("staff's header shows %q", not)
			}
		}
		b.shot("es01-hoy")
		for _, p := range []struct{ name, path, sel, want string }{
			{"es02-pacientes", "/app/clients", "main h1", "Pacientes"},
			{"es03-paciente", "/app/clients/" + itoa(a.Clients["pedro"]), "#email", "Otros datos"},
			{"es04-bandeja", "/app/conversations", "main h1", "Bandeja de entrada"},
			{"es05-lista-de-espera", "/app/waitlists", "main h1", "Listas de espera"},
		} {
			b.visit(p.path, p.sel)
			if got := b.text("main"); !strings.Contains(got, p.want) {
				b.t.Errorf("%s does not say %q: %.300s", p.path, p.want, got)
			}
			// Staff see a patient's extra data as a list, not JSON.
			if p.name == "es03-paciente" {
				if got := b.text("dl.custom-data"); !strings.Contains(got, "source") || !strings.Contains(got, "referral") {
					b.t.Errorf("the patient's other details read %q", got)
				}
			}
			b.shot(p.name)
		}
	})
}
