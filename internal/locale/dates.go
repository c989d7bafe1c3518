package locale

import (
	"strings"
	"time"
)

// names are a language's day and month names, long and short, indexed by
// time.Weekday and time.Month-1.
type names struct{ days, shortDays, months, shortMonths []string }

// spanish are the Spanish names (RAE's abbreviations: "sept", "mié").
var spanish = names{
	days:        []string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"},
	shortDays:   []string{"dom", "lun", "mar", "mié", "jue", "vie", "sáb"},
	months:      []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	shortMonths: []string{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"},
}

// nameTokens are the layout elements that write a name, longest first.
var nameTokens = []string{"Monday", "January", "Mon", "Jan"}

// FormatTime formats t with a time.Format layout, its day and month names
// in lang (English names for every language without its own). Pages say
// dates through FormatDate; FormatTime is for a layout no style covers.
func FormatTime(lang string, t time.Time, layout string) string {
	if lang != "es" {
		return t.Format(layout)
	}
	var b strings.Builder
	for layout != "" {
		at, token := -1, ""
		for _, tok := range nameTokens {
			if i := strings.Index(layout, tok); i >= 0 && (at < 0 || i < at) {
				at, token = i, tok
			}
		}
		if at < 0 {
			b.WriteString(t.Format(layout))
			break
		}
		b.WriteString(t.Format(layout[:at]))
		switch token {
		case "Monday":
			b.WriteString(spanish.days[t.Weekday()])
		case "January":
			b.WriteString(spanish.months[t.Month()-1])
		case "Mon":
			b.WriteString(spanish.shortDays[t.Weekday()])
		case "Jan":
			b.WriteString(spanish.shortMonths[t.Month()-1])
		}
		layout = layout[at+len(token):]
	}
	return b.String()
}

// DateStyle is how much of a date a page says: the long forms head a day
// and fill sentences, the short ones fit a table cell or a button.
type DateStyle string

// The date styles every page uses (docs/languages.md shows each in both
// languages).
const (
	Long          DateStyle = "long"            // lunes, 30 de noviembre de 2026 · Monday, 30 November 2026
	LongTime      DateStyle = "long-time"       // lunes, 30 de noviembre de 2026, 10:00
	DayMonth      DateStyle = "day-month"       // lunes, 30 de noviembre · Monday, 30 November
	DayMonthTime  DateStyle = "day-month-time"  // lunes, 30 de noviembre, 10:00
	Short         DateStyle = "short"           // lun 30 nov · Mon 30 Nov
	ShortTime     DateStyle = "short-time"      // lun 30 nov, 10:00 · Mon 30 Nov, 10:00
	ShortYear     DateStyle = "short-year"      // lun 30 nov 2026 · Mon 30 Nov 2026
	ShortYearTime DateStyle = "short-year-time" // lun 30 nov 2026, 10:00
	Stamp         DateStyle = "stamp"           // 30 nov 2026, 10:00 · 30 Nov 2026, 10:00
	DayOfMonth    DateStyle = "day"             // 30 nov · 30 Nov
	Clock         DateStyle = "time"            // 10:00
)

// dateLayouts are each language's layouts by style; a language without its
// own row says dates as English does.
var dateLayouts = map[string]map[DateStyle]string{
	"es": {
		Long: "Monday, 2 de January de 2006", LongTime: "Monday, 2 de January de 2006, 15:04",
		DayMonth: "Monday, 2 de January", DayMonthTime: "Monday, 2 de January, 15:04",
		Short: "Mon 2 Jan", ShortTime: "Mon 2 Jan, 15:04", ShortYear: "Mon 2 Jan 2006", ShortYearTime: "Mon 2 Jan 2006, 15:04",
		Stamp: "2 Jan 2006, 15:04", DayOfMonth: "2 Jan", Clock: "15:04",
	},
	"en": {
		Long: "Monday, 2 January 2006", LongTime: "Monday, 2 January 2006, 15:04",
		DayMonth: "Monday, 2 January", DayMonthTime: "Monday, 2 January, 15:04",
		Short: "Mon 2 Jan", ShortTime: "Mon 2 Jan, 15:04", ShortYear: "Mon 2 Jan 2006", ShortYearTime: "Mon 2 Jan 2006, 15:04",
		Stamp: "2 Jan 2006, 15:04", DayOfMonth: "2 Jan", Clock: "15:04",
	},
}

// IsDateStyle reports whether s names a date style.
func IsDateStyle(s string) bool {
	_, ok := dateLayouts["en"][DateStyle(s)]
	return ok
}

// FormatDate says t (already in the zone to show) in lang's style: the one
// function every page and message of the dashboard and the booking page
// formats a date for a person with.
func FormatDate(lang string, t time.Time, style DateStyle) string {
	layouts, ok := dateLayouts[lang]
	if !ok {
		layouts = dateLayouts["en"]
	}
	layout, ok := layouts[style]
	if !ok {
		layout = layouts[Stamp]
	}
	return FormatTime(lang, t, layout)
}
