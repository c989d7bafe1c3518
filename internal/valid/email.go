package valid

import (
	"net/mail"
	"strings"
	"unicode/utf8"
)

// MaxEmailLen is the longest e-mail address any door stores.
const MaxEmailLen = 255

// Email is the one e-mail rule every door applies (public API booking,
// ingest, waiting lists, the dashboard, the workspace file, MCP, invitations):
// it trims s and accepts it when what is left is one bare address, local@domain,
// of at most MaxEmailLen characters. Display names ("Nora <nora@example.com>"),
// angle brackets, lists ("a,b@example.com"), comments, whitespace inside and a
// missing local part or domain are refused. The address is returned as
// written (trimmed); contact.NormEmail gives the lower-cased form clients
// are matched on. Deliverability is not judged.
func Email(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > MaxEmailLen || strings.ContainsAny(s, " \t\r\n<>,;") {
		return s, false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return s, false
	}
	i := strings.LastIndex(s, "@")
	return s, i > 0 && i < len(s)-1
}
