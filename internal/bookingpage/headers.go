package bookingpage

// What every answer of the page says to the browser (docs/booking-page.md,
// "Embedding"): never cache it (a slot list goes stale, a manage page is
// one patient's), never send its address on (it may hold a manage token),
// never index it, and let it be framed only by the clinic's own sites.

import (
	"net/http"
	"net/url"
	"strings"
)

// privacyHeaders sets what every answer carries, refusals and 404s
// included; the frame policy starts as 'self' until the account's origins
// are known (frameAncestors).
func privacyHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Content-Security-Policy", "frame-ancestors 'self'")
}

// frameAncestors allows exactly the account's embed origins to frame the
// page ('self' when none is listed). An origin that could break the
// header (a space, a semicolon, a quote) is left out rather than trusted:
// the workspace file checks them, and the header is not the place to find
// out it did not.
func frameAncestors(h http.Header, origins []string) {
	var allowed []string
	for _, o := range origins {
		if safeOrigin(o) {
			allowed = append(allowed, o)
		}
	}
	if len(allowed) == 0 {
		allowed = []string{"'self'"}
	}
	h.Set("Content-Security-Policy", "frame-ancestors "+strings.Join(allowed, " "))
}

// safeOrigin reports whether o is a scheme and host (and port) a CSP
// source list can hold as it is.
func safeOrigin(o string) bool {
	if o == "" || strings.ContainsAny(o, " \t\r\n;,'\"") {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && (u.Path == "" || u.Path == "/") &&
		u.RawQuery == "" && u.Fragment == "" && u.User == nil
}
