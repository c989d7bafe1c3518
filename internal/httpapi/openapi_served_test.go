package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
)

// TestOpenAPIServed checks the two reference routes: no key needed, the
// embedded document byte for byte, a rendered page naming every operation,
// and conditional requests.
func TestOpenAPIServed(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		res := h.do("GET", "/api/v2/public/openapi.json", "", nil).must(t, http.StatusOK)
		if !bytes.Equal(res.Raw, httpapi.OpenAPI()) {
			t.Error("served document differs from the embedded one")
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		// A bad key does not matter either.
		h.do("GET", "/api/v2/public/openapi.json", "pk_wrong_wrong_wrong", nil).must(t, http.StatusOK)
		// Writing is still a 405 (after authentication, like every public path).
		h.do("POST", "/api/v2/public/openapi.json", acmeKey, nil).must(t, http.StatusMethodNotAllowed)

		page := h.do("GET", "/docs", "", nil).must(t, http.StatusOK)
		if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("/docs Content-Type = %q", ct)
		}
		html := string(page.Raw)
		c := mustContract(t)
		for _, r := range c.routes {
			if !strings.Contains(html, r.template) {
				t.Errorf("/docs does not show %s", r.template)
			}
		}
		for _, want := range []string{"INGEST_ROLLED_BACK", "Idempotency-Key", "not_found_client_ids", "IngestRowResult",
			"<code>valid_*_names</code>", "<strong>a 500 may be retried</strong>", "appointment.booked", `class="add">additive`,
			"Manage links", "Calendar feeds", "CHANGE_NOT_ALLOWED", "<code>text/calendar</code>", "BEGIN:VCALENDAR\n"} {
			if !strings.Contains(html, want) {
				t.Errorf("/docs does not mention %s", want)
			}
		}
		// Nothing runs and nothing is fetched from elsewhere: no scripts,
		// frames, embeds, style sheets or imports, and no attribute or CSS
		// naming another site. (Addresses in the text, such as an example
		// manage_url, are words on the page.)
		for _, banned := range []string{"<script", "<iframe", "<object", "<embed", "<link", "@import", "url(", `="http`, `='http`, `="//`, ` src=`} {
			if strings.Contains(strings.ToLower(html), banned) {
				t.Errorf("/docs contains %q: the page must be self-contained", banned)
			}
		}

		// Compressed for clients that accept it.
		zreq := httptest.NewRequest("GET", "/api/v2/public/openapi.json", nil)
		zreq.Header.Set("Accept-Encoding", "gzip")
		zrec := httptest.NewRecorder()
		h.srv.ServeHTTP(zrec, zreq)
		zr, err := gzip.NewReader(zrec.Body)
		if err != nil {
			t.Fatalf("gzip: %v (Content-Encoding %q)", err, zrec.Header().Get("Content-Encoding"))
		}
		unzipped, _ := io.ReadAll(zr)
		if zrec.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(unzipped, httpapi.OpenAPI()) {
			t.Error("gzip answer differs from the document")
		}

		// Conditional GET.
		req := httptest.NewRequest("GET", "/docs", nil)
		req.Header.Set("If-None-Match", page.Header.Get("ETag"))
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified {
			t.Errorf("If-None-Match: status %d, want 304", rec.Code)
		}
	})
}
