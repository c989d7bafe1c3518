package bookingpage

import (
	"net/http"
	"strconv"
)

// routes maps every page and action on one screen. Steps that change
// nothing are GET links (a patient may go back and forth, reload, share);
// every change is a POST answered with a redirect.
func (p *Page) routes() {
	// The booking page (book.go, book_steps.go).
	p.mux.HandleFunc("GET /book/{slug}", p.handleServices)
	p.mux.HandleFunc("GET /book/{slug}/slots", p.handleSlots)
	p.mux.HandleFunc("GET /book/{slug}/details", p.handleDetails)
	p.mux.HandleFunc("POST /book/{slug}/details", p.handleDetailsPost)
	p.mux.HandleFunc("GET /book/{slug}/code", p.handleCode)
	p.mux.HandleFunc("POST /book/{slug}/code", p.handleCodePost)
	p.mux.HandleFunc("GET /book/{slug}/booked", p.handleBooked)

	// The manage page (manage.go, manage_change.go); its calendar file,
	// /m/{token}/appointment.ics, is served by the patient API.
	p.mux.HandleFunc("GET /m/{token}", p.handleManage)
	p.mux.HandleFunc("POST /m/{token}/confirm", p.handleManageAnswer(true))
	p.mux.HandleFunc("POST /m/{token}/decline", p.handleManageAnswer(false))
	p.mux.HandleFunc("GET /m/{token}/cancel", p.handleCancelStep)
	p.mux.HandleFunc("POST /m/{token}/cancel", p.handleCancel)
	p.mux.HandleFunc("GET /m/{token}/reschedule", p.handleReschedule)
	p.mux.HandleFunc("GET /m/{token}/reschedule/confirm", p.handleMoveStep)
	p.mux.HandleFunc("POST /m/{token}/reschedule/confirm", p.handleMove)

	// Anything else under /book/ and /m/: the translated 404 page.
	p.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { p.notFound(w, r, pickLanguage(r, "")) })
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
