package dashboard

// A client's data rights from their page (docs/data-rights.md): owners
// download everything held about the client as JSON, and erase the
// client's personal data after typing the client's id. Staff are refused
// both. The rules are privacy.Export and privacy.Erase, as on the command
// line.

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/privacy"
)

// dataRightsOnly refuses staff: exporting and erasing a client's data is
// the account owners' decision.
func dataRightsOnly(d *Dashboard, h handler) handler {
	return func(w http.ResponseWriter, r *http.Request, s *session) error {
		if !s.IsOwner() {
			d.renderError(w, r, s, http.StatusForbidden, s.Translate("Only the account's owners can export or erase a client's data."))
			return nil
		}
		return h(w, r, s)
	}
}

// exportClient handles "GET /app/clients/{client_id}/export": the
// client's document as a JSON download, recorded in the audit log.
func (d *Dashboard) exportClient(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	ctx, now := r.Context(), d.clock.Now()
	if _, err := contact.GetClient(ctx, d.db, s.Account, id); err != nil {
		return err
	}
	if err := privacy.RecordExport(ctx, d.db, s.Account, id, audit.Actor{UserID: s.UserID, UserName: s.UserName}, now); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="client-%d-%s.json"`, id, now.UTC().Format("20060102-150405")))
	w.Header().Set("Cache-Control", "no-store")
	if err := privacy.Export(ctx, d.db, s.Account, id, w, now); err != nil {
		// The body has begun: the download is cut short rather than
		// answered with a page.
		d.log.Error("client export", "client_id", id, "err", err)
	}
	return nil
}

// eraseView is the erasure's confirmation page.
type eraseView struct {
	Client   contact.Client
	ErasedAt *time.Time
	Back     string
}

func (eraseView) isPage() {}

// erasePage handles "GET /app/clients/{client_id}/erase": what erasure
// does, and the form that asks for the client's id typed back.
func (d *Dashboard) erasePage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	c, err := contact.GetClient(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	erased, err := privacy.ErasedAt(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "client_erase", "Erase a client's data", "clients",
		eraseView{Client: c, ErasedAt: erased, Back: fmt.Sprintf("%sclients/%d", Prefix, id)})
	return nil
}

// eraseClient handles "POST /app/clients/{client_id}/erase": with the
// client's id typed in confirm, privacy.Erase; otherwise nothing changes
// and the page says why.
func (d *Dashboard) eraseClient(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	if strings.TrimSpace(r.PostForm.Get("confirm")) != strconv.FormatInt(id, 10) {
		if _, err := contact.GetClient(r.Context(), d.db, s.Account, id); err != nil {
			return err
		}
		return errs.New(errs.ValidationError, "Type the client's id, %d, to confirm: nothing was erased.", id)
	}
	if _, err := privacy.Erase(r.Context(), d.db, s.Account, id, audit.Actor{UserID: s.UserID, UserName: s.UserName}, d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%sclients/%d", Prefix, id), "ok", s.Translate("The client's personal data was erased."))
	return nil
}
