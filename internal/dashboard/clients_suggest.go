package dashboard

// The header's patient search type-ahead (docs/patient-search.md): a small
// JSON answer of the one client search, which static/app.js shows as a
// listbox under the header's search field. Without JavaScript the header's
// form goes to the Clients page instead.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/contact"
)

// maxSuggestions is how many clients the type-ahead lists.
const maxSuggestions = 8

// suggestion is one client of the type-ahead: what the Clients page's list
// shows of it (the phone in full, as the list shows it).
type suggestion struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Phone string `json:"phone"`
	URL   string `json:"url"`
}

// suggestClients handles "GET /app/clients/suggest?q=": at most
// maxSuggestions clients of contact.SearchClients, as
// {"clients": [...], "total": n}. It needs a session like every page, but
// answers 401 without one (a script, not a person, asks), and an empty
// list for an empty query.
func (d *Dashboard) suggestClients(w http.ResponseWriter, r *http.Request) {
	s, err := d.currentSession(r)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	if s == nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": langOf(r, nil).Translate("Sign in again to search.")})
		return
	}
	q, err := searchTerm(r.URL.Query().Get("q"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": s.Translate("A search may have at most %d characters.", maxSearchLen)})
		return
	}
	out := struct {
		Clients []suggestion `json:"clients"`
		Total   int          `json:"total"`
	}{Clients: []suggestion{}}
	if q != "" {
		var list []contact.Client
		list, out.Total, err = contact.SearchClients(r.Context(), d.db, s.Account, q, maxSuggestions)
		if err != nil {
			d.fail(w, r, s, err)
			return
		}
		for _, c := range list {
			name := c.Name()
			if name == "" {
				name = s.Translate("Client %d", c.ID)
			}
			phone := ""
			if p := c.PhoneE164(); p != nil {
				phone = *p
			}
			out.Clients = append(out.Clients, suggestion{ID: c.ID, Name: name, Phone: phone, URL: fmt.Sprintf("%sclients/%d", Prefix, c.ID)})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// writeJSON encodes v before writing the header, so an encoding failure
// never leaves half an answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
