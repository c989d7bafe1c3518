package waitlist

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/valid"
)

// The waiting-list row parser under fuzzing: any JSON object is a row that
// either carries plain-English errors or can be written: a normalised phone
// or a well-formed e-mail, at least one service, names and notes within
// their limits, a priority of 0..3, real dates in order and a known time
// preference. `go test` runs the seeds of testdata/fuzz/; fuzz with
//
//	go test ./internal/waitlist -run '^$' -fuzz FuzzParseRow -fuzztime 60s
func FuzzParseRow(f *testing.F) {
	regions := []string{"ES", "GB", "US", ""}
	f.Fuzz(func(t *testing.T, data []byte, region uint8) {
		v, err := valid.ParseJSON(data)
		if err != nil {
			return
		}
		raw, ok := v.(map[string]any)
		if !ok {
			return
		}
		r := ParseRow(3, raw, regions[int(region)%len(regions)])
		if r.Index != 3 {
			t.Fatalf("index %d", r.Index)
		}
		for _, e := range r.errors {
			if strings.TrimSpace(e) == "" {
				t.Fatalf("an empty row error from %s", data)
			}
		}
		if len(r.errors) > 0 {
			return
		}
		if r.Phone.IsZero() && r.Email == "" {
			t.Fatalf("a row without errors names no contact: %s", data)
		}
		if r.phoneText != "" && (r.Phone.CountryCode <= 0 || strings.Trim(r.Phone.National, "0123456789") != "" || r.Phone.National == "") {
			t.Fatalf("phone %+v from %s", r.Phone, data)
		}
		if r.Email != "" && (!validEmail(r.Email) || utf8.RuneCountInString(r.Email) > MaxEmailLen) {
			t.Fatalf("e-mail %q accepted", r.Email)
		}
		if len(r.ServiceIDs) == 0 && len(r.ServiceNames) == 0 {
			t.Fatalf("a row without services accepted: %s", data)
		}
		for _, s := range []string{r.FirstName, r.LastName} {
			if utf8.RuneCountInString(s) > MaxNameLen {
				t.Fatalf("name %q accepted", s)
			}
		}
		p := r.Prefs
		if p.Priority != nil && (*p.Priority < 0 || *p.Priority > 3) {
			t.Fatalf("priority %d accepted", *p.Priority)
		}
		for _, d := range []*string{p.EarliestDate, p.LatestDate} {
			if d != nil {
				if _, err := time.Parse(time.DateOnly, *d); err != nil {
					t.Fatalf("date %q accepted", *d)
				}
			}
		}
		if p.EarliestDate != nil && p.LatestDate != nil && *p.LatestDate < *p.EarliestDate {
			t.Fatalf("dates out of order accepted: %s", data)
		}
		if p.TimePreference != nil {
			found := false
			for _, tp := range TimePreferences {
				found = found || tp == *p.TimePreference
			}
			if !found {
				t.Fatalf("time preference %q accepted", *p.TimePreference)
			}
		}
		if p.Notes != nil && utf8.RuneCountInString(*p.Notes) > MaxNotesLen {
			t.Fatalf("notes of %d characters accepted", utf8.RuneCountInString(*p.Notes))
		}
	})
}
