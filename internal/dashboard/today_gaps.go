package dashboard

// Free gaps on the Today grid (docs/today.md): every professional's free
// intervals from the slot engine (calendar.FreeGaps), whatever service the
// page was asked about, each with "Book" links at the starts of a service
// that fits and an "Offer" link to the waiting list; and, after a cancel
// from Today, the offer of the freed time.

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
)

// gapView is a free gap on the grid: the starts of the service shown (the
// page's service when the professional offers it and it fits, else the
// first that fits) as booking links, the other services that fit (the
// booking form lists them all), and the waiting-list offer of its first
// start.
type gapView struct {
	Start, End  time.Time
	ProName     string
	ServiceName string
	Others      int // other services that fit
	Starts      []gapStart
	OfferURL    string
}

type gapStart struct {
	At      time.Time
	BookURL string
}

// addGaps puts each gap on its column as a free item and returns how many
// starts they show.
func addGaps(gaps []calendar.FreeGap, preferred *calendar.Service, client *contact.Client, column func(t time.Time, id int64, name string) *gridColumn) int {
	n := 0
	for _, g := range gaps {
		c := column(g.Start, g.ProfessionalID, g.ProfessionalName)
		if c == nil {
			continue
		}
		fit := g.Fits[0]
		if preferred != nil {
			for _, f := range g.Fits {
				if f.ServiceID == preferred.ID {
					fit = f
				}
			}
		}
		v := &gapView{Start: g.Start, End: g.End, ProName: g.ProfessionalName, ServiceName: fit.ServiceName, Others: len(g.Fits) - 1,
			OfferURL: offerURL(g.ProfessionalID, fit.ServiceID, fit.Starts[0])}
		for _, at := range fit.Starts {
			book := slotValues(g.ProfessionalID, fit.ServiceID, at)
			if client != nil { // Book from a patient's page (book_for_client.go)
				book.Set("client_id", strconv.FormatInt(client.ID, 10))
			}
			v.Starts = append(v.Starts, gapStart{At: at, BookURL: Prefix + "book?" + book.Encode()})
		}
		n += len(v.Starts)
		c.Items = append(c.Items, &gridItem{Start: g.Start, End: g.End, Gap: v})
	}
	return n
}

// slotValues names a slot as the booking form and the waiting-list offer
// page read it.
func slotValues(pro, svc int64, start time.Time) url.Values {
	return url.Values{"professional_id": {strconv.FormatInt(pro, 10)}, "service_id": {strconv.FormatInt(svc, 10)},
		"start": {start.UTC().Format(time.RFC3339)}}
}

// offerURL is the page offering a time to the waiting list
// (docs/waiting-list-by-hand.md).
func offerURL(pro, svc int64, start time.Time) string {
	return Prefix + "waitlists/offer?" + slotValues(pro, svc, start).Encode()
}

// freedOffer is the offer link of the appointment a cancel from Today
// freed (the freed parameter the cancel form returns with): only when it is
// cancelled and still to come.
func freedOffer(appts []calendar.AppointmentView, freed string, now time.Time) string {
	id, err := strconv.ParseInt(freed, 10, 64)
	if err != nil {
		return ""
	}
	for _, a := range appts {
		if a.ID == id && a.Status == calendar.StatusCancelled && a.StartAt.After(now) {
			return offerURL(a.ProfessionalID, a.ServiceID, a.StartAt)
		}
	}
	return ""
}

// withoutFreed is this page's address without the freed parameter, for
// the actions to return to (the offer is said once, after the cancel).
func withoutFreed(u *url.URL) string {
	q := u.Query()
	q.Del("freed")
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}

// cancelBack is this page's address for a cancel form to return to, ending
// in "freed=" for the template to add the appointment's id.
func cancelBack(u *url.URL) string {
	s := withoutFreed(u)
	if strings.Contains(s, "?") {
		return s + "&freed="
	}
	return s + "?freed="
}
