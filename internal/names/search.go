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
	full := Words(first + " " + last)
	var b strings.Builder
	b.WriteString(strings.Join(full, " "))
	b.WriteString("\t")
	words := full
	if e := Fold(email); e != "" {
		words = append(append(words, e), Words(e)...)
	}
	if id := Fold(nationalID); id != "" {
		words = append(words, id)
	}
	for _, w := range words {
		b.WriteString(" ")
		b.WriteString(w)
	}
	b.WriteString(" ")
	return b.String()
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
