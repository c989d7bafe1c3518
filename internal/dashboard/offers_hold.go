package dashboard

// A held seat offer, on the patient's behalf (docs/waiting-list-by-hand.md):
// accept books it as the patient's "sí" does (offers.Accept), release
// gives it back as an expired hold goes back (offers.Release).

import (
	"net/http"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/frontdesk/frontdesk/internal/offers"
)

// acceptOffer handles "POST /app/offers/{offer_id}/accept" (the offer's id
// is its waiting-list entry's): the held seat is booked for the offered
// patient by staff, audited; back to the page the form came from.
func (d *Dashboard) acceptOffer(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "offer_id")
	if err != nil {
		return err
	}
	now := d.clock.Now()
	var b *offers.Accepted
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		if b, err = offers.Accept(r.Context(), tx, s.Account, id, now); err != nil || b == nil {
			return err // a seat gone after all is released: committed
		}
		return audit.Record(r.Context(), tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, "accepted", "waitlist_entry",
			strconv.FormatInt(id, 10), "seat offer booked on the patient's behalf: appointment "+strconv.FormatInt(b.Booking.Appointment.ID, 10), now)
	})
	back := backTo(r, Prefix+"waitlists")
	if err != nil {
		return d.refuseTo(w, r, s, back, err)
	}
	if b == nil {
		d.redirect(w, r, back, "error", s.Translate("The seat is no longer available: the hold is released and the patient waits again."))
		return nil
	}
	a := b.Booking.Appointment
	d.redirect(w, r, back, "ok", s.Translate("Booked %s for %s on %s with %s.", a.Client.Name, a.Service.Name,
		sayDate(s.Lang, b.Start.In(s.Account.Location()), locale.ShortTime), a.CalendarProfile.Name))
	return nil
}

// releaseOffer handles "POST /app/offers/{offer_id}/release": the hold is
// given back (the entry waits again and the list offers its free seats at
// once), audited; back to the page the form came from.
func (d *Dashboard) releaseOffer(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "offer_id")
	if err != nil {
		return err
	}
	now := d.clock.Now()
	var name string
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		if name, err = offers.Release(r.Context(), tx, s.Account, id, now); err != nil {
			return err
		}
		return audit.Record(r.Context(), tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, "released", "waitlist_entry",
			strconv.FormatInt(id, 10), "seat offer released", now)
	})
	back := backTo(r, Prefix+"waitlists")
	if err != nil {
		return d.refuseTo(w, r, s, back, err)
	}
	d.redirect(w, r, back, "ok", s.Translate("Released the seat held for %s; it is free again and the next in line may be offered it.", name))
	return nil
}
