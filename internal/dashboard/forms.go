package dashboard

import (
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Bounds on what a dashboard form or query may send towards the database.
const (
	// maxSearchLen caps a search box (characters): longer patterns are no
	// use to a person and SQLite refuses LIKE patterns over 50,000 bytes.
	maxSearchLen = 200
	// maxPage caps a page number: offsets stay far from overflowing.
	maxPage = 10000
	// maxPool caps the team members of an input node's assignment pool.
	maxPool = 100
	// maxRedirectLen caps a redirect target taken from a form or header.
	maxRedirectLen = 2048
)

const badCharsMessage = "The form or address contains characters that are not allowed (a NUL byte or invalid UTF-8). Remove them and try again."

// decodeForm is where every dashboard request's form is read: the query
// string and, for a POST, a body of at most maxBody bytes. A form that
// cannot be parsed, or any name or value with a NUL byte or invalid UTF-8
// (which PostgreSQL refuses as text), ends here with a 400 and reaches no
// handler and no database; it reports false then.
func (d *Dashboard) decodeForm(w http.ResponseWriter, r *http.Request, s *session, maxBody int64) bool {
	if status, msg := parseForm(w, r, maxBody); status != 0 {
		d.renderError(w, r, s, status, msg)
		return false
	}
	return true
}

// parseForm parses r's form and validates it, returning 0 or the status
// and message to refuse it with.
func parseForm(w http.ResponseWriter, r *http.Request, maxBody int64) (int, string) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		return http.StatusBadRequest, "The form or address could not be read."
	}
	if !validValues(r.Form) {
		return http.StatusBadRequest, badCharsMessage
	}
	return 0, ""
}

// validValues reports whether every name and value is valid UTF-8 without
// NUL bytes.
func validValues(v url.Values) bool {
	for k, vals := range v {
		if !validText(k) {
			return false
		}
		for _, s := range vals {
			if !validText(s) {
				return false
			}
		}
	}
	return true
}

func validText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// searchTerm is a search box's value, trimmed, or a validation error when
// it is too long.
func searchTerm(raw string) (string, error) {
	q := strings.TrimSpace(raw)
	if utf8.RuneCountInString(q) > maxSearchLen {
		return "", errs.New(errs.ValidationError, "A search may have at most %d characters.", maxSearchLen)
	}
	return q, nil
}

// pageNumber reads a 1-based page number; absent is page 1.
func pageNumber(raw string) (int, error) {
	if raw == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > maxPage {
		return 0, errs.New(errs.ValidationError, "The page must be a number from 1 to %d.", maxPage)
	}
	return n, nil
}

// localPath returns raw as a dashboard path on this host ("/app/…" with
// its query, the path cleaned of dot segments), or "" when following it
// could lead anywhere else. It accepts a relative path, or an absolute
// http(s) URL whose host is host (a Referer); it refuses backslashes and
// control characters anywhere (browsers read "\" as "/", so "/\evil" is
// "//evil"), scheme-relative "//" starts, user info, and any path that is
// not under /app/ once cleaned.
func localPath(raw, host string) string {
	if raw == "" || len(raw) > maxRedirectLen || !safeURLText(raw) {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil {
		return ""
	}
	switch {
	case u.Scheme == "" && u.Host == "":
		if !strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "//") {
			return ""
		}
	case (u.Scheme == "http" || u.Scheme == "https") && host != "" && strings.EqualFold(u.Host, host):
	default:
		return ""
	}
	// The decoded path: %5c and %2f must not smuggle what raw may not hold.
	if !safeURLText(u.Path) || strings.HasPrefix(u.Path, "//") {
		return ""
	}
	clean := path.Clean(u.Path)
	if strings.HasSuffix(u.Path, "/") && clean != "/" {
		clean += "/"
	}
	if !strings.HasPrefix(clean, Prefix) {
		return ""
	}
	return (&url.URL{Path: clean, RawQuery: u.RawQuery}).String()
}

// safeURLText reports whether s has no backslash, no control character
// and is valid UTF-8.
func safeURLText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if c == '\\' || c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
			return false
		}
	}
	return true
}
