package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/frontdesk/frontdesk/internal/apidocs"
)

// openapiJSON is the OpenAPI 3.1 document of the public API: the one copy,
// served as is and rendered into /docs. contract_check_test.go validates
// every response of the HTTP tests against it, so it cannot drift from the
// server; openapi_examples_test.go validates its examples.
//
//go:embed openapi.json
var openapiJSON []byte

var openapiETag = func() string {
	sum := sha256.Sum256(openapiJSON)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// OpenAPI returns a copy of the OpenAPI document.
func OpenAPI() []byte { return bytes.Clone(openapiJSON) }

// handleOpenAPI handles "GET /api/v2/public/openapi.json" (no key needed).
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	serveStatic(w, r, "application/json", openapiJSON, openapiGzip(), openapiETag)
	return nil
}

// The document and the page compress about tenfold; both are compressed
// once.
var (
	openapiGzip = sync.OnceValue(func() []byte { return gzipped(openapiJSON) })
	docsGzip    = sync.OnceValue(func() []byte {
		page, _ := docsPage()
		return gzipped(page)
	})
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// handleDocs handles "GET /docs": a self-contained HTML reference rendered
// from the document (no scripts, no external assets).
func (s *Server) handleDocs(w http.ResponseWriter, r *http.Request) error {
	page, err := docsPage()
	if err != nil {
		return err
	}
	// The page is self-contained: inline styles only, no scripts, no
	// frames, nothing fetched from elsewhere.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	serveStatic(w, r, "text/html; charset=utf-8", page, docsGzip(), openapiETag)
	return nil
}

// serveStatic serves body (or its gzip form to a client that accepts it)
// with an ETag, answering a matching If-None-Match with 304.
func serveStatic(w http.ResponseWriter, r *http.Request, ctype string, body, gz []byte, etag string) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		body = gz
		etag = strings.TrimSuffix(etag, `"`) + `-gz"`
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.Header().Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// docsPage renders the reference page once (internal/apidocs).
var docsPage = sync.OnceValues(func() ([]byte, error) { return apidocs.Render(openapiJSON) })
