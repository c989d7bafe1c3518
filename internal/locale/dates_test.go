package locale_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/locale"
)

// TestFormatDate: every style in both languages, on a Monday in November
// and on a Wednesday in May (the month whose short name is its long one).
func TestFormatDate(t *testing.T) {
	monday := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	wednesday := time.Date(2027, 5, 5, 9, 5, 0, 0, time.UTC)
	for _, test := range []struct {
		lang  string
		at    time.Time
		style locale.DateStyle
		want  string
	}{
		{"es", monday, locale.Long, "lunes, 30 de noviembre de 2026"},
		{"en", monday, locale.Long, "Monday, 30 November 2026"},
		{"es", monday, locale.LongTime, "lunes, 30 de noviembre de 2026, 10:00"},
		{"en", monday, locale.LongTime, "Monday, 30 November 2026, 10:00"},
		{"es", monday, locale.DayMonth, "lunes, 30 de noviembre"},
		{"en", monday, locale.DayMonth, "Monday, 30 November"},
		{"es", monday, locale.DayMonthTime, "lunes, 30 de noviembre, 10:00"},
		{"en", monday, locale.DayMonthTime, "Monday, 30 November, 10:00"},
		{"es", monday, locale.Short, "lun 30 nov"},
		{"en", monday, locale.Short, "Mon 30 Nov"},
		{"es", monday, locale.ShortTime, "lun 30 nov, 10:00"},
		{"en", monday, locale.ShortTime, "Mon 30 Nov, 10:00"},
		{"es", monday, locale.ShortYear, "lun 30 nov 2026"},
		{"en", monday, locale.ShortYearTime, "Mon 30 Nov 2026, 10:00"},
		{"es", monday, locale.Stamp, "30 nov 2026, 10:00"},
		{"en", monday, locale.Stamp, "30 Nov 2026, 10:00"},
		{"es", monday, locale.DayOfMonth, "30 nov"},
		{"es", monday, locale.Clock, "10:00"},
		{"es", wednesday, locale.Long, "miércoles, 5 de mayo de 2027"},
		{"es", wednesday, locale.ShortTime, "mié 5 may, 09:05"},
		{"en", wednesday, locale.ShortTime, "Wed 5 May, 09:05"},
		{"fr", monday, locale.Long, "Monday, 30 November 2026"},
		{"es", monday, "no-such-style", "30 nov 2026, 10:00"},
	} {
		if got := locale.FormatDate(test.lang, test.at, test.style); got != test.want {
			t.Errorf("%s %s %s = %q, want %q", test.lang, test.style, test.at, got, test.want)
		}
	}
}
