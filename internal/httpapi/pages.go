package httpapi

// The patients' pages (internal/bookingpage, docs/booking-page.md) share
// the patient API's per-address bucket: a page and a call of the API it
// stands for cost the same, whichever door a patient (or a script) uses.

import (
	"net/http"
	"strconv"
)

// tooMany is a handler that answers a refused request itself (the pages
// say it on a page of their own, in the patient's language).
type tooMany interface {
	TooManyRequests(w http.ResponseWriter, r *http.Request)
}

// pagesGate takes a token from the client address's patients' bucket for
// every request of the pages; a refused request is 429 with Retry-After,
// answered by the pages when they can.
func (s *Server) pagesGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l := s.limits; !l.off {
			d := l.addrs.Allow("patient:"+addressBucket(r), l.patients)
			setRateHeaders(w.Header(), d)
			if !d.Allowed {
				if page, ok := next.(tooMany); ok {
					w.Header().Set("Retry-After", strconv.FormatInt(max(wholeSeconds(d.RetryAfter), 1), 10))
					page.TooManyRequests(w, r)
					return
				}
				refuse(w, r, d, "Too many requests from this address.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
