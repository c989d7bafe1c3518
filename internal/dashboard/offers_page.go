package dashboard

// Offering a freed time to the waiting lists by hand, and "Book now" on a
// waiting row (docs/waiting-list-by-hand.md). Who matches, the hold and
// its message are the offers area's (offers.MatchTime, offers.OfferTime,
// offers.EntrySlots): the rule of the automatic offers.

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/frontdesk/frontdesk/internal/offers"
)

// offerView is the page of a freed time: the time, the services free for
// their whole duration from it, and the waiting patients it suits.
type offerView struct {
	Time       offers.FreedTime
	Services   map[int64]string // names of the slots' services
	ServiceID  int64            // the service asked for (0: every one)
	StartValue string           // the time as RFC 3339, for the forms
}

func (offerView) isPage() {}

// freedTime is what the offer page and its form name: professional_id,
// service_id (optional) and start (RFC 3339).
type freedTime struct {
	professionalID, serviceID int64
	start                     time.Time
}

func readFreedTime(form url.Values) (freedTime, error) {
	var (
		f   freedTime
		err error
	)
	bad := errs.New(errs.ValidationError, "Choose a free time to offer: a professional and a start.")
	if f.professionalID, err = strconv.ParseInt(strings.TrimSpace(form.Get("professional_id")), 10, 64); err != nil || f.professionalID <= 0 {
		return f, bad
	}
	if v := strings.TrimSpace(form.Get("service_id")); v != "" {
		if f.serviceID, err = strconv.ParseInt(v, 10, 64); err != nil || f.serviceID <= 0 {
			return f, bad
		}
	}
	if f.start, err = time.Parse(time.RFC3339, strings.TrimSpace(form.Get("start"))); err != nil {
		return f, bad
	}
	return f, nil
}

// offerPage handles "GET /app/waitlists/offer?professional_id=&service_id=&start=":
// the waiting patients a free time suits, in queue order, with "Offer to
// the next in line" and "Offer to this patient". A time that is not free,
// has begun or is not the account's goes back to the waiting lists with
// the reason.
func (d *Dashboard) offerPage(w http.ResponseWriter, r *http.Request, s *session) error {
	f, err := readFreedTime(r.URL.Query())
	if err == nil {
		var ft offers.FreedTime
		if ft, err = offers.MatchTime(r.Context(), d.db, s.Account, f.professionalID, f.serviceID, f.start, d.clock.Now()); err == nil {
			v := offerView{Time: ft, ServiceID: f.serviceID, StartValue: f.start.UTC().Format(time.RFC3339), Services: map[int64]string{}}
			services, err := calendar.ListServices(r.Context(), d.db, s.Account)
			if err != nil {
				return err
			}
			for _, svc := range services {
				v.Services[svc.ID] = svc.Name
			}
			d.render(w, r, s, http.StatusOK, "waitlist_offer", "Offer a freed time", "waitlists", v)
			return nil
		}
	}
	return d.refuseTo(w, r, s, Prefix+"waitlists", err)
}

// refuseTo goes to path with a refusal's reason as the flash; an error
// that is not a refusal is the error page's.
func (d *Dashboard) refuseTo(w http.ResponseWriter, r *http.Request, s *session, path string, err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code == errs.NotFound {
		return err
	}
	d.redirect(w, r, path, "error", s.Err(e))
	return nil
}

// offerTime handles "POST /app/waitlists/offer" (professional_id,
// service_id, start, optional entry_id): offers.OfferTime to that entry or
// to the next in line, audited. Back to the form's local back field, or
// to the waiting lists at the entry.
func (d *Dashboard) offerTime(w http.ResponseWriter, r *http.Request, s *session) error {
	f, err := readFreedTime(r.PostForm)
	if err != nil {
		return d.refuseTo(w, r, s, Prefix+"waitlists", err)
	}
	var entryID int64
	if v := strings.TrimSpace(r.PostForm.Get("entry_id")); v != "" {
		if entryID, err = strconv.ParseInt(v, 10, 64); err != nil || entryID <= 0 {
			return d.refuseTo(w, r, s, Prefix+"waitlists", offers.ErrNotMatched)
		}
	}
	now := d.clock.Now()
	var m offers.Match
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		if m, err = offers.OfferTime(r.Context(), tx, s.Account, f.professionalID, f.serviceID, f.start, entryID, now); err != nil {
			return err
		}
		return audit.Record(r.Context(), tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, "offered", "waitlist_entry",
			strconv.FormatInt(m.EntryID, 10), "seat offer: "+m.Slot.Start.UTC().Format(time.RFC3339), now)
	})
	if err != nil {
		// Back to the offer page while the time may still be offered to
		// someone else; it refuses in turn when it cannot.
		back := Prefix + "waitlists/offer?" + url.Values{"professional_id": {strconv.FormatInt(f.professionalID, 10)},
			"service_id": {r.PostForm.Get("service_id")}, "start": {f.start.UTC().Format(time.RFC3339)}}.Encode()
		return d.refuseTo(w, r, s, back, err)
	}
	loc := s.Account.Location()
	msg := s.Translate("Offered %s to %s; the seat is held until %s.", sayDate(s.Lang, m.Slot.Start.In(loc), locale.ShortTime),
		m.ClientName, sayDate(s.Lang, m.Timing.ExpiresAt.In(loc), locale.ShortTime))
	if m.Timing.SendAt.After(now) {
		msg += " " + s.Translate("Quiet hours: the message goes out at %s.", sayDate(s.Lang, m.Timing.SendAt.In(loc), locale.ShortTime))
	}
	to := Prefix + "waitlists#entry-" + strconv.FormatInt(m.EntryID, 10)
	if back := localPath(r.PostForm.Get("back"), r.Host); back != "" {
		to = back
	}
	d.redirect(w, r, to, "ok", msg)
	return nil
}

// entryBookView is "Book now" of a waiting row: the free seats the entry
// accepts, each a link to the booking form with the client chosen.
type entryBookView struct {
	Entry    offers.EntryTimes
	Pros     map[int64]string
	BookURLs []string // per slot
}

func (entryBookView) isPage() {}

// entryBookPage handles "GET /app/waitlists/entries/{entry_id}/book": the
// next free seats (within the list's horizon) that suit the entry's
// preferences. Booking one through the form resolves the entry as booked
// (calendar.Book resolves the client's open entry for the service).
func (d *Dashboard) entryBookPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "entry_id")
	if err != nil {
		return err
	}
	et, err := offers.EntrySlots(r.Context(), d.db, s.Account, id, d.clock.Now(), 20)
	if err != nil {
		return d.refuseTo(w, r, s, Prefix+"waitlists", err)
	}
	scheds, err := calendar.ListServices(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	v := entryBookView{Entry: et, Pros: map[int64]string{}}
	for _, svc := range scheds {
		for _, p := range svc.Professionals {
			v.Pros[p.ID] = p.Name
		}
	}
	find := et.Phone // the booking form's search finds the client by phone, else by name
	if find == "" {
		find = et.ClientName
	}
	for _, sl := range et.Slots {
		q := url.Values{"professional_id": {strconv.FormatInt(sl.ProfessionalID, 10)}, "service_id": {strconv.FormatInt(sl.ServiceID, 10)},
			"start": {sl.Start.UTC().Format(time.RFC3339)}, "client_id": {strconv.FormatInt(et.ClientID, 10)}, "q": {find}}
		v.BookURLs = append(v.BookURLs, Prefix+"book?"+q.Encode())
	}
	d.render(w, r, s, http.StatusOK, "waitlist_book", "Book now", "waitlists", v)
	return nil
}
