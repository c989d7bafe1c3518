package names

// The folding of the one client search rule (docs/patient-search.md): the
// search column every write of a client stores, and the words a query is
// cut into, folded the same way so the two always meet.

import (
	"strings"
	"unicode"
)

// Words returns the folded words of s (Fold, then cut at every rune that
// is neither a letter nor a digit): Words("María José García-López") is
// [maria jose garcia lopez].
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// SearchText is the stored search column of a client: the folded full
// name, a tab, then every word a query word may be a prefix of (the words
// of both names, the folded e-mail whole, its words, and the folded
// national id (DNI/NIE) whole), each preceded by a space and the last
// followed by one. "María García",
// "maria.garcia@example.com" gives
// "maria garcia\t maria garcia maria.garcia@example.com maria garcia example com "
// (with the national id "12345678Z", "… com 12345678z ").
// The tab sorts below every character of a name, so ordering by the column
// in code-point order is ordering by the folded full name ("ana" before
// "ana belen"), and it ends the full name for the exact-name match.
func SearchText(first, last, email, nationalID string) string {
	// Every write of a client stores it, 500 times in an ingest batch: the
	// words are written as they are found, with no list of them built
	// (TestSearchTextMatchesWords and FuzzSearchText hold it to the
	// definition above).
	full, e, id := Fold(first+" "+last), Fold(email), Fold(nationalID)
	var b strings.Builder
	b.Grow(2*len(full) + 2*len(e) + len(id) + 8)
	eachWord(full, func(w string, i int) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	})
	b.WriteByte('\t')
	spaced := func(w string, _ int) {
		b.WriteByte(' ')
		b.WriteString(w)
	}
	eachWord(full, spaced)
	if e != "" {
		spaced(e, 0)
		eachWord(e, spaced) // Fold(e) is e: its words are Words(email)
	}
	if id != "" {
		spaced(id, 0)
	}
	b.WriteByte(' ')
	return b.String()
}

// eachWord calls fn with each word of the folded s, as Words cuts it, and
// its position.
func eachWord(s string, fn func(w string, i int)) {
	n, start := 0, -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			fn(s[start:i], n)
			n, start = n+1, -1
		}
	}
	if start >= 0 {
		fn(s[start:], n)
	}
}

// QueryWords cuts a search query into the folded words that must each be
// the prefix of a word of SearchText: words as Words cuts them, except
// that a word with an '@' stays whole, to match the e-mail from its start.
func QueryWords(query string) []string {
	var out []string
	for _, field := range strings.Fields(query) {
		if strings.Contains(field, "@") {
			out = append(out, Fold(field))
			continue
		}
		out = append(out, Words(field)...)
	}
	return out
}
