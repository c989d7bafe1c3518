package dashboard

// Settings › Audit log: every settings change, newest first.

import (
	"net/http"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// auditPageSize is the entries per page of the audit log.
const auditPageSize = 50

// auditView is a page of the audit log; Next is the id the next page
// starts before (0: none).
type auditView struct {
	Entries []audit.Entry
	Next    int64
	First   bool
}

func (auditView) isPage() {}

// auditPage handles "GET /app/settings/audit?before=": newest first, a
// page at a time.
func (d *Dashboard) auditPage(w http.ResponseWriter, r *http.Request, s *session) error {
	var before int64
	if v := r.URL.Query().Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return errs.New(errs.ValidationError, "%s", s.Translate("The page address is not valid."))
		}
		before = n
	}
	list, err := audit.List(r.Context(), d.db, s.Account, before, auditPageSize)
	if err != nil {
		return err
	}
	var next int64
	if len(list) == auditPageSize {
		next = list[len(list)-1].ID
	}
	d.render(w, r, s, http.StatusOK, "settings_audit", "Audit log", "settings-audit", auditView{Entries: list, Next: next, First: before == 0})
	return nil
}
