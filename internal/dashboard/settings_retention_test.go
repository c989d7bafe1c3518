package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/retention"
)

// TestSettingsRetention: an owner sees what is kept and for how long, sets
// the periods (refused values write nothing; each save is one audit entry)
// and sees what the last run removed, in English and in Spanish; staff are
// refused (docs/retention.md). The harness clock is 2026-11-23 in Madrid.
func TestSettingsRetention(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.acme()
		const page = "/app/settings/retention"
		ana := h.signedIn("ana@acme.test", "ana-password") // English
		ana.get(page).must(t, http.StatusOK).contains(t, `aria-current="page">Data retention`,
			"<th scope=\"row\">Messages</th><td>Keep forever</td>", "<th scope=\"row\">Audit log</th><td>Keep forever</td>", "No run yet.")

		p := ana.post(page, url.Values{"messages": {"2w"}})
		ana.follow(p).contains(t, `class="flash error"`, "Messages: &#34;2w&#34; is not a period like 90d, 24mo or 5y, from 1 day to 100 years")
		if n := h.auditRows("retention"); n != 0 {
			t.Fatalf("a refused save wrote %d audit entries", n)
		}
		ana.follow(ana.post(page, url.Values{"messages": {"24mo"}, "outbox": {""}, "webhook_deliveries": {"90d"}, "audit": {"1y"}})).
			must(t, http.StatusOK).contains(t, "Saved.", "<td>24 months</td>", "<td>90 days</td>", "<td>1 year</td>",
			"<th scope=\"row\">Sent messages (outbox)</th><td>Keep forever</td>", `value="24mo"`, "Next run: within a minute.")
		var summary string
		store.QueryRow(t.Context(), `SELECT summary FROM audit_log WHERE object_type = 'retention'`).Scan(&summary)
		if want := "messages: forever → 24mo; webhook_deliveries: forever → 90d; audit: forever → 1y"; summary != want {
			t.Errorf("audit summary %q, want %q", summary, want)
		}
		ana.follow(ana.post(page, url.Values{"messages": {"24mo"}, "webhook_deliveries": {"90d"}, "audit": {"1y"}})).contains(t, "Nothing changed.")
		if n := h.auditRows("retention"); n != 1 {
			t.Fatalf("audit entries = %d, want 1", n)
		}

		// A run: two audit entries older than a year go.
		acct, err := account.BySlug(t.Context(), store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		now := h.clock.Now()
		for range 2 {
			if _, err := store.Exec(t.Context(), `INSERT INTO audit_log (account_id, action, object_type, created_at) VALUES (?, 'updated', 'service', ?)`,
				acct.ID, db.Micros(now.AddDate(-2, 0, 0))); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := store.Exec(t.Context(), `INSERT INTO audit_log (account_id, action, object_type, created_at) VALUES (?, 'updated', 'service', ?)`,
			acct.ID, db.Micros(now)); err != nil {
			t.Fatal(err)
		}
		if _, err := retention.Run(t.Context(), store, acct, now, false); err != nil {
			t.Fatal(err)
		}
		body := ana.get(page).must(t, http.StatusOK).Body
		for _, want := range []string{"Last run", "Next run: ", "<th scope=\"row\">Audit log</th><td>1 year</td><td>", "</td><td>2</td></tr>"} {
			if !strings.Contains(body, want) {
				t.Errorf("the last run: no %q", want)
			}
		}

		eva := h.signedIn("eva@acme.test", "eva-password") // the account's Spanish
		eva.get(page).must(t, http.StatusOK).contains(t, `<html lang="es">`, "Conservación de datos", "<td>24 meses</td>", "<td>1 año</td>",
			"Para siempre", "Última ejecución", "Eliminados")
		eva.follow(eva.post(page, url.Values{"audit": {"0d"}})).contains(t, "Registro de cambios: &#34;0d&#34; no es un plazo como 90d, 24mo o 5y")

		sara := h.signedIn("sara@acme.test", "sara-password") // staff
		sara.get(page).must(t, http.StatusForbidden)
		if p := sara.post(page, url.Values{"messages": {"1d"}}); p.Status != http.StatusForbidden {
			t.Errorf("staff saved retention: %d", p.Status)
		}
		if n := h.auditRows("retention"); n != 1 {
			t.Errorf("audit entries = %d after staff and refused saves, want 1", n)
		}
	})
}
