package contact

import (
	"strings"
	"unicode/utf8"
)

// MaxNameLen is the longest first or last name of a client, in characters
// (docs/contract.md, Limits): every door's decoder and use case uses it.
const MaxNameLen = 100

// Names is the client-name rule every door follows (booking, ingest,
// waiting lists, the dashboard's client form, the workspace file): first and
// last are trimmed, and ok is false when either has more than MaxNameLen
// characters. Whether a new client needs a name at all is the use case's (a
// booking's does, NAME_REQUIRED; a lead's does not).
func Names(first, last string) (string, string, bool) {
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	return first, last, utf8.RuneCountInString(first) <= MaxNameLen && utf8.RuneCountInString(last) <= MaxNameLen
}
