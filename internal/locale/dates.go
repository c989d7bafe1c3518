package locale

import (
	"strings"
	"time"
)

// spanishNames says the day and month names Go's layouts write in Spanish.
var spanishNames = strings.NewReplacer(
	"January", "enero", "February", "febrero", "March", "marzo", "April", "abril", "May", "mayo", "June", "junio",
	"July", "julio", "August", "agosto", "September", "septiembre", "October", "octubre", "November", "noviembre", "December", "diciembre",
	"Monday", "lunes", "Tuesday", "martes", "Wednesday", "miércoles", "Thursday", "jueves", "Friday", "viernes", "Saturday", "sábado", "Sunday", "domingo",
	"Jan", "ene", "Feb", "feb", "Mar", "mar", "Apr", "abr", "Jun", "jun", "Jul", "jul", "Aug", "ago", "Sep", "sept", "Oct", "oct", "Nov", "nov", "Dec", "dic",
	"Mon", "lun", "Tue", "mar", "Wed", "mié", "Thu", "jue", "Fri", "vie", "Sat", "sáb", "Sun", "dom",
)

// FormatTime formats t with a time.Format layout, its day and month names
// in lang (English names for every language without its own).
func FormatTime(lang string, t time.Time, layout string) string {
	s := t.Format(layout)
	if lang == "es" {
		s = spanishNames.Replace(s)
	}
	return s
}
