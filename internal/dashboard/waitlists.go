package dashboard

// The waiting lists page: entries by service, and the receptionist's
// actions on an entry (remove, snooze, flag).

import (
	"net/http"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

type serviceGroup struct {
	Name    string
	Entries []waitlist.Entry
}

type listView struct {
	List   waitlist.ListSummary
	Groups []serviceGroup
	Count  int
}

// waitlistsView is the waiting lists page: each list with its entries,
// the seat offers by entry, and the account's totals.
type waitlistsView struct {
	Lists    []listView
	Offers   map[int64]*waitlist.OfferedSlot
	Totals   waitlist.Totals
	Status   string
	Tomorrow string // YYYY-MM-DD in the account's zone, for the snooze field
}

func (waitlistsView) isPage() {}

// waitlistsPage handles "GET /app/waitlists?status=": every list with its
// settings and its entries per service in position order; a queued entry
// shows the slot its seat offer names and until when the offer holds it.
func (d *Dashboard) waitlistsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	now := d.clock.Now()
	status := r.URL.Query().Get("status")
	switch status {
	case "", "open", "resolved", "all":
	default:
		status = "open"
	}
	sum, err := waitlist.Summarize(r.Context(), d.db, s.Account, now)
	if err != nil {
		return err
	}
	var lists []listView
	for _, l := range sum.Lists {
		entries, total, err := waitlist.ListEntries(r.Context(), d.db, s.Account, waitlist.Filter{WaitlistID: l.ID, Status: status, Limit: 500}, now)
		if err != nil {
			return err
		}
		lv := listView{List: l, Count: total}
		for _, e := range entries {
			if n := len(lv.Groups); n == 0 || lv.Groups[n-1].Name != e.Service.Name {
				lv.Groups = append(lv.Groups, serviceGroup{Name: e.Service.Name})
			}
			lv.Groups[len(lv.Groups)-1].Entries = append(lv.Groups[len(lv.Groups)-1].Entries, e)
		}
		lists = append(lists, lv)
	}
	offered, err := waitlist.OfferedSlots(r.Context(), d.db, s.Account, waitlist.OfferFilter{})
	if err != nil {
		return err
	}
	offers := make(map[int64]*waitlist.OfferedSlot, len(offered)) // a pointer: an entry without an offer finds nil
	for i := range offered {
		offers[offered[i].EntryID] = &offered[i]
	}
	d.render(w, r, s, http.StatusOK, "waitlists", "Waiting lists", "waitlists", waitlistsView{
		Lists: lists, Offers: offers, Totals: sum.Totals, Status: status, Tomorrow: now.In(s.Account.Location()).AddDate(0, 0, 1).Format("2006-01-02")})
	return nil
}

// removeEntry handles "POST /app/waitlists/entries/{entry_id}/remove".
func (d *Dashboard) removeEntry(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "entry_id")
	if err != nil {
		return err
	}
	reason := strings.TrimSpace(r.PostForm.Get("reason"))
	if reason == "" {
		reason = "removed_via_dashboard"
	}
	if len(reason) > 255 {
		return errs.New(errs.ValidationError, "A reason may have at most 255 characters.")
	}
	e, err := waitlist.Remove(r.Context(), d.db, s.Account, id, reason, d.clock.Now())
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"waitlists", "ok", s.Translate("%s %s removed from the waiting list for %s.", e.Client.FirstName, e.Client.LastName, e.Service.Name))
	return nil
}

// snoozeEntry handles "POST /app/waitlists/entries/{entry_id}/snooze" with
// a date: the entry sleeps until that day starts in the account's zone.
func (d *Dashboard) snoozeEntry(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "entry_id")
	if err != nil {
		return err
	}
	day, ok := calendar.ParseDate(strings.TrimSpace(r.PostForm.Get("until")), s.Account.Location())
	if !ok {
		return errs.New(errs.ValidationError, "Choose the date the entry wakes up.")
	}
	if err := waitlist.SnoozeEntry(r.Context(), d.db, s.Account, id, day, d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"waitlists", "ok", s.Translate("Entry snoozed until %s.", sayDate(s.Lang, day, locale.Long)))
	return nil
}

// flagEntry handles "POST /app/waitlists/entries/{entry_id}/flag".
func (d *Dashboard) flagEntry(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "entry_id")
	if err != nil {
		return err
	}
	flagged := r.PostForm.Get("flagged") == "true"
	if err := waitlist.SetEntryFlag(r.Context(), d.db, s.Account, id, flagged, d.clock.Now()); err != nil {
		return err
	}
	msg := s.Translate("Flag cleared.")
	if flagged {
		msg = s.Translate("Entry flagged for review.")
	}
	d.redirect(w, r, Prefix+"waitlists", "ok", msg)
	return nil
}
