package dashboard_test

import (
	"encoding/csv"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/reports/reportstest"
)

// reportClinics seeds the reports' hand-counted week into two accounts
// (reportstest.Clinic), each with a Spanish owner and staff user, and signs
// in a's owner and staff.
func reportClinics(t *testing.T, h *harness) (owner, staff *user) {
	t.Helper()
	for _, slug := range []string{"repa", "repb"} {
		reportClinic(t, h, slug)
	}
	return h.signedIn("olga@repa.test", "olga-password"), h.signedIn("sergio@repa.test", "sergio-password")
}

// reportClinic seeds the week into account slug, with Olga (owner) and
// Sergio (staff), both in Spanish, as olga@<slug>.test and
// sergio@<slug>.test.
func reportClinic(t *testing.T, h *harness, slug string) {
	t.Helper()
	reportstest.Clinic(t, h.store, slug, []map[string]any{
		{"key": "olga", "name": "Olga", "email": "olga@" + slug + ".test", "password": "olga-password", "language": "es"},
		{"key": "sergio", "name": "Sergio", "email": "sergio@" + slug + ".test", "password": "sergio-password", "role": "staff", "language": "es"},
		{"key": "ben", "name": "Ben", "email": "ben@" + slug + ".test", "password": "ben-password", "role": "staff", "language": "es", "professional": "p1"},
	}, password.Hash)
}

const reportWeek = "from=" + reportstest.FirstDay + "&to=" + reportstest.LastDay

// tableRe finds a report table; cellRe its header and data cells.
var (
	tableRe = regexp.MustCompile(`(?s)<table id="table-([a-z-]+)">(.*?)</table>`)
	rowRe   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
)

// pageTables reads every report table of a page: name → rows of cells
// (the header first), as text.
func pageTables(body string) map[string][][]string {
	out := map[string][][]string{}
	for _, m := range tableRe.FindAllStringSubmatch(body, -1) {
		var rows [][]string
		for _, r := range rowRe.FindAllStringSubmatch(m[2], -1) {
			var cells []string
			for _, c := range cellRe.FindAllStringSubmatch(r[1], -1) {
				cells = append(cells, html.UnescapeString(c[1]))
			}
			rows = append(rows, cells)
		}
		out[m[1]] = rows
	}
	return out
}

func TestReportsPage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		owner, staff := reportClinics(t, h)
		p := owner.get("/app/reports?"+reportWeek).must(t, http.StatusOK)
		p.contains(t, `<html lang="es">`, `role="img"`, `<title>Citas por estado</title>`, "Informes")
		tables := pageTables(p.Body)
		// The hand-counted week (reportstest.Seed): account repb's copy of
		// it would double every number if it leaked in.
		for _, c := range []struct {
			table string
			row   []string
		}{
			{"appointments-status", []string{"Total", "10", "100,0 %"}},
			{"appointments-status", []string{"no se presentó", "2", "20,0 %"}},
			{"appointments-source", []string{"página de reservas", "1", "10,0 %"}},
			{"appointments-rates", []string{"No presentadas", "2", "20,0 %"}},
			{"appointments-rates", []string{"Cancelaciones tardías", "2", "20,0 %"}},
			{"appointments-rates", []string{"Confirmadas", "4", "40,0 %"}},
			{"appointments-rates", []string{"Mediana del tiempo hasta confirmar", "3", "4 h 0 min"}},
			{"utilisation", []string{"Ana Pro", "240", "1200", "20,0 %"}},
			{"utilisation", []string{"Ben Pro", "120", "960", "12,5 %"}},
			{"messages", []string{"WhatsApp", "0", "0", "4", "0", "1", "0", "5"}},
			{"message-reasons", []string{"SMS", "fallido", "invalid number", "2"}},
			{"waitlist", []string{"Ofertas enviadas", "3"}},
			{"waitlist", []string{"Mediana del tiempo hasta cubrir un hueco liberado", "3 h 0 min"}},
			{"pipelines", []string{"Sales", "Contacted", "2", "50,0 %", "1", "10 h 0 min"}},
			{"new-clients", []string{"Total", "3"}},
		} {
			if !hasRow(tables[c.table], c.row) {
				t.Errorf("%s: no row %q in %q", c.table, c.row, tables[c.table])
			}
		}
		// Every table's CSV is the table, as an attachment.
		for name, rows := range tables {
			res := owner.get("/app/reports/"+name+".csv?"+reportWeek).must(t, http.StatusOK)
			if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, name+"-2026-03-02-2026-03-08.csv") {
				t.Errorf("%s: Content-Disposition %q", name, cd)
			}
			records, err := csv.NewReader(strings.NewReader(res.Body)).ReadAll()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if strings.Join(flat(records), "|") != strings.Join(flat(rows), "|") && !(len(rows) == 2 && len(records) == 1) {
				t.Errorf("%s: csv %q, page %q", name, records, rows)
			}
		}
		owner.get("/app/reports/nothing.csv?"+reportWeek).must(t, http.StatusNotFound)

		// Staff: the clinic's numbers, no professional's.
		s := staff.get("/app/reports?"+reportWeek).must(t, http.StatusOK)
		st := pageTables(s.Body)
		if !hasRow(st["appointments-rates"], []string{"No presentadas", "2", "20,0 %"}) {
			t.Errorf("staff rates: %q", st["appointments-rates"])
		}
		if strings.Contains(s.Body, "Ana Pro") || strings.Contains(s.Body, `name="professional_id"`) {
			t.Error("staff sees a professional's numbers")
		}
		if !hasRow(st["utilisation"], []string{"Total", "360", "2160", "16,7 %"}) || len(st["utilisation"]) != 2 || st["utilisation"][0][0] != "Clínica" {
			t.Errorf("staff utilisation: %q", st["utilisation"])
		}
		csvBody := staff.get("/app/reports/utilisation.csv?"+reportWeek).must(t, http.StatusOK).Body
		if strings.Contains(csvBody, "Ana Pro") {
			t.Errorf("staff utilisation csv: %q", csvBody)
		}
		staff.get("/app/reports?"+reportWeek+"&professional_id=1").must(t, http.StatusBadRequest)

		// Ben (staff) is Ben Pro: the appointment numbers are his own, and
		// no other professional can be chosen.
		ben := h.signedIn("ben@repa.test", "ben-password")
		b := ben.get("/app/reports?"+reportWeek).must(t, http.StatusOK).contains(t, "Las cifras de citas son las tuyas (Ben Pro)")
		bt := pageTables(b.Body)
		if !hasRow(bt["utilisation"], []string{"Ben Pro", "120", "960", "12,5 %"}) || strings.Contains(b.Body, "Ana Pro") {
			t.Errorf("Ben's utilisation: %q", bt["utilisation"])
		}
		if hasRow(bt["appointments-rates"], []string{"No presentadas", "2", "20,0 %"}) {
			t.Errorf("Ben sees the clinic's rates: %q", bt["appointments-rates"])
		}
		var ana int64
		store.QueryRow(t.Context(), `SELECT p.id FROM professionals p JOIN accounts a ON a.id = p.account_id WHERE a.slug = 'repa' AND p.file_key = 'p0'`).Scan(&ana)
		if p := ben.get("/app/reports?" + reportWeek + "&professional_id=" + itoa(ana)); p.Status < 400 {
			t.Errorf("Ben opened Ana's numbers: %d", p.Status)
		}
		if csv := ben.get("/app/reports/utilisation.csv?"+reportWeek).must(t, http.StatusOK).Body; strings.Contains(csv, "Ana Pro") {
			t.Errorf("Ben's utilisation csv: %q", csv)
		}

		// The menu offers the page to both.
		for _, u := range []*user{owner, staff} {
			u.get("/app/today").must(t, http.StatusOK).contains(t, `href="/app/reports"`)
		}
		// Bad periods are refused, and the default is last month.
		owner.get("/app/reports?from=2026-03-08&to=2026-03-01").must(t, http.StatusBadRequest)
		owner.get("/app/reports?preset=next_year").must(t, http.StatusBadRequest)
		owner.get("/app/reports").must(t, http.StatusOK).contains(t, `value="2026-10-01"`, `value="2026-10-31"`)
	})
}

func hasRow(rows [][]string, want []string) bool {
	for _, r := range rows {
		if strings.Join(r, "|") == strings.Join(want, "|") {
			return true
		}
	}
	return false
}

func flat(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, ";"))
	}
	return out
}
