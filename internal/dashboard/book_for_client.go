package dashboard

// Booking for a client chosen first (the client's page "Book" button,
// docs/patient-fields.md): Today with client_id carries the client into
// every free slot's "Book" link, and the booking form shows that client
// chosen.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/contact"
)

// bookForClientURL is Today with the client chosen.
func bookForClientURL(id int64) string { return fmt.Sprintf("%stoday?client_id=%d", Prefix, id) }

// bookingFor reads Today's client_id: the client every "Book" link books
// for, or nil when none is given. Another account's client is NOT_FOUND.
func (d *Dashboard) bookingFor(r *http.Request, s *session) (*contact.Client, error) {
	raw := strings.TrimSpace(r.URL.Query().Get("client_id"))
	if raw == "" {
		return nil, nil
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return nil, notFound("Client", raw)
	}
	c, err := contact.GetClient(r.Context(), d.db, s.Account, id)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// chosenClient puts the client the form names by id (client_id, from a
// "Book" link of Today with a client chosen) first among the form's
// choices, so the form shows that client checked. An unknown id is left
// out; booking then refuses it as before.
func (d *Dashboard) chosenClient(r *http.Request, s *session, v *bookView) error {
	id, err := strconv.ParseInt(v.Form.ClientID, 10, 64)
	if err != nil || id <= 0 || slices.ContainsFunc(v.Matches, func(c contact.Client) bool { return c.ID == id }) {
		return nil
	}
	c, err := contact.GetClient(r.Context(), d.db, s.Account, id)
	if err != nil {
		return nil
	}
	v.Matches = append([]contact.Client{c}, v.Matches...)
	return nil
}
