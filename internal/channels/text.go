package channels

import (
	"strings"
	"unicode/utf8"
)

// CleanText is the one rule for every text a provider callback carries
// (bodies, names, numbers, media fields, error codes and titles, provider
// ids): NUL bytes are removed and invalid UTF-8 becomes U+FFFD, so that
// both engines store the same text and PostgreSQL, which refuses either,
// never fails the callback (docs/api-notes.md, "Channels"). The decoders
// call it after the signature was checked on the raw values, so chat,
// consent and the reply words downstream see clean text only.
func CleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, string(utf8.RuneError)), "\x00", "")
}
