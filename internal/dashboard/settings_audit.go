package dashboard

// Settings › Audit log: every settings change, newest first, its times in
// the account's zone and the reader's language (docs/languages.md).

import (
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// auditPageSize is the entries per page of the audit log.
const auditPageSize = 50

// auditView is a page of the audit log; Next is the id the next page
// starts before (0: none).
type auditView struct {
	Entries []auditRow
	Next    int64
	First   bool
}

// auditRow is an entry as the page says it: the instants its summary
// names (stored in UTC, RFC 3339) in the account's zone and the reader's
// language.
type auditRow struct {
	audit.Entry
	Summary string
}

// instant is an RFC 3339 time inside a stored summary.
var instant = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})`)

// auditRows says list's summaries with their instants in loc and lang.
func auditRows(list []audit.Entry, lang string, loc *time.Location) []auditRow {
	out := make([]auditRow, len(list))
	for i, e := range list {
		out[i] = auditRow{Entry: e, Summary: instant.ReplaceAllStringFunc(e.Summary, func(v string) string {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return v
			}
			return sayDate(lang, t.In(loc), locale.ShortYearTime)
		})}
	}
	return out
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
	d.render(w, r, s, http.StatusOK, "settings_audit", "Audit log", "settings-audit", auditView{Entries: auditRows(list, s.Lang, s.Account.Location()), Next: next, First: before == 0})
	return nil
}
