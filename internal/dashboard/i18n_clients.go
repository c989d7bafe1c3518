package dashboard

import "strings"

// valueLabel returns the function templates call to show a stored value
// (a status, a priority, a time of day) in the session's language: the
// catalogue's "value|<value>", else the value with spaces for underscores.
// Values have keys of their own: one English word ("booked", "new") reads
// differently in Spanish by what it describes.
func valueLabel(s *session) func(string) string {
	return func(v string) string {
		return valueIn(s.Lang, v)
	}
}

// valueIn is how a stored value reads in lang: the catalogue's
// "value|<value>", else the value with spaces for underscores (and a miss
// the tests hear).
func valueIn(lang, v string) string {
	if t, ok := catalogue()[lang]["value|"+v]; ok {
		return t
	}
	if v != "" {
		missed(lang, "value|"+v)
	}
	return strings.ReplaceAll(v, "_", " ")
}
