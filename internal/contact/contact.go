// Package contact owns clients (contacts): how they are normalised, matched
// (by id, national phone digits, or e-mail), created and merged. Calendar,
// waiting lists, ingest and the workspace all create and match clients
// through it, so the rules are written once.
package contact

import (
	"strings"

	"github.com/frontdesk/frontdesk/internal/valid"
)

// validEmail applies the one e-mail rule (valid.Email) to an already
// trimmed address.
func validEmail(s string) bool {
	_, ok := valid.Email(s)
	return ok
}

// NormEmail is the form e-mails are matched on: trimmed and lower-cased.
func NormEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// SearchName is the lower-cased "first last" that chat search matches
// substrings of.
func SearchName(first, last string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimSpace(first) + " " + strings.TrimSpace(last)))
}

// DisplayName is the name shown for a client: "first last", trimmed.
func DisplayName(first, last string) string {
	return strings.TrimSpace(strings.TrimSpace(first) + " " + strings.TrimSpace(last))
}
