package dashboard

// Settings › Data retention: how long the account keeps messages, the
// outbox, webhook deliveries and the audit log, and what the last daily
// run removed (docs/retention.md). Periods are read by the one reader
// (retention.Read), the same as the workspace file's account.retention;
// saves are audited.

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/retention"
)

// retentionRow is one kind: what the page says it keeps and the form's
// value ("" keeps it forever).
type retentionRow struct {
	Kind, Label, Hint string
	Kept, Value       string
}

// retentionRunRow is what the last run did to one kind.
type retentionRunRow struct {
	Label, Kept string
	Cutoff      time.Time
	Count       int64
}

// retentionView is the data retention page.
type retentionView struct {
	Rows []retentionRow
	// LastRunAt is zero before the first run.
	LastRunAt time.Time
	LastRun   []retentionRunRow
	// NextRunAt is zero when the policy runs at the worker's next check
	// (Limited) or never (everything kept forever).
	NextRunAt time.Time
	Limited   bool
}

func (retentionView) isPage() {}

// retentionLabel and retentionHint say a kind in the user's language.
func retentionLabel(s *session, k retention.Kind) string {
	switch k {
	case retention.Messages:
		return s.Translate("Messages")
	case retention.Outbox:
		return s.Translate("Sent messages (outbox)")
	case retention.WebhookDeliveries:
		return s.Translate("Webhook deliveries")
	}
	return s.Translate("Audit log")
}

func retentionHint(s *session, k retention.Kind) string {
	switch k {
	case retention.Messages:
		return s.Translate("Conversation messages keep their place, sender and time; their text and media are erased.")
	case retention.Outbox:
		return s.Translate("Reminders, confirmations and automation messages already sent, failed or cancelled are deleted; pending ones never.")
	case retention.WebhookDeliveries:
		return s.Translate("Finished webhook calls are deleted with their attempts.")
	}
	return s.Translate("Entries of the audit log are deleted.")
}

// sayPeriod says how long a period keeps data ("24 months").
func sayPeriod(s *session, p retention.Period) string {
	switch {
	case p.Unit == retention.Days && p.N == 1:
		return s.Translate("1 day")
	case p.Unit == retention.Days:
		return s.Translate("%d days", p.N)
	case p.Unit == retention.Months && p.N == 1:
		return s.Translate("1 month")
	case p.Unit == retention.Months:
		return s.Translate("%d months", p.N)
	case p.N == 1:
		return s.Translate("1 year")
	}
	return s.Translate("%d years", p.N)
}

// retentionPage handles "GET /app/settings/retention".
func (d *Dashboard) retentionPage(w http.ResponseWriter, r *http.Request, s *session) error {
	st, err := retention.Load(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	v := retentionView{NextRunAt: st.NextRunAt, Limited: len(st.Policy) > 0}
	for _, k := range retention.Kinds {
		row := retentionRow{Kind: string(k), Label: retentionLabel(s, k), Hint: retentionHint(s, k), Kept: s.Translate("Keep forever")}
		if p, ok := st.Policy[k]; ok {
			row.Kept, row.Value = sayPeriod(s, p), p.String()
		}
		v.Rows = append(v.Rows, row)
	}
	if run := st.LastRun; run != nil {
		v.LastRunAt = run.At
		for _, res := range run.Results {
			kept := res.Period
			if p, err := retention.ParsePeriod(res.Period); err == nil {
				kept = sayPeriod(s, p)
			}
			v.LastRun = append(v.LastRun, retentionRunRow{Label: retentionLabel(s, res.Kind), Kept: kept, Cutoff: res.Cutoff, Count: res.Count})
		}
	}
	d.render(w, r, s, http.StatusOK, "settings_retention", "Data retention", "settings-retention", v)
	return nil
}

// saveRetention handles "POST /app/settings/retention".
func (d *Dashboard) saveRetention(w http.ResponseWriter, r *http.Request, s *session) error {
	values := map[string]any{}
	for _, k := range retention.Kinds {
		values[string(k)] = strings.TrimSpace(r.PostForm.Get(string(k)))
	}
	policy, bad := retention.Read(values)
	for _, k := range retention.Kinds {
		if err := bad[string(k)]; err != nil {
			var e *errs.Error
			if errors.As(err, &e) {
				return errs.New(errs.ValidationError, "%s: %s", retentionLabel(s, k), s.Err(e))
			}
			return err
		}
	}
	changed, err := d.change(r.Context(), s, "updated", "retention", func(tx *db.Tx) (string, []string, error) {
		changes, err := retention.Save(r.Context(), tx, s.Account, policy)
		return idString(s.Account.ID), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/retention", "ok", savedMessage(s, changed))
	return nil
}
