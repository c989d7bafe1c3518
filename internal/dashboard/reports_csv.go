package dashboard

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"

	"github.com/frontdesk/frontdesk/internal/reports"
)

// reportCSV handles "GET /app/reports/{file}": the table {name} of the
// page as {name}.csv with the page's filters, the same cells the page
// shows, as an attachment. A name that is no table, or a professional or
// service of another account, is a 404; staff get the utilisation table's
// clinic total only (docs/reports.md, Who sees what).
func (d *Dashboard) reportCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	name, ok := strings.CutSuffix(r.PathValue("file"), ".csv")
	if !ok || !contains(reportTableNames, name) {
		d.notFoundPage(w, r)
		return nil
	}
	p, f, scope, err := d.reportFilters(r, s)
	if err != nil {
		return err
	}
	if _, _, err := d.reportOptions(r, s, scope, f); err != nil {
		return err
	}
	rep, err := reports.Build(r.Context(), d.db, s.Account, f, scope, d.clock.Now())
	if err != nil {
		return err
	}
	var table reportTable
	for _, t := range reportTables(s.Lang, rep) {
		if t.Name == name {
			table = t
		}
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(table.Head)
	cw.WriteAll(table.Rows)
	if err := cw.Error(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`-`+p.FirstDay+`-`+p.LastDay+`.csv"`)
	w.Write(buf.Bytes())
	return nil
}
