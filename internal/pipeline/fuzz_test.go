package pipeline

import (
	"net/mail"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// The ingest row parser under fuzzing: any JSON object is a row that either
// carries errors (each with a field, a row code of the contract and a
// message) or is a contact the batch can match or create: a client_id, a
// normalised phone or a well-formed e-mail, names within their limits, data
// keys of 1..100 characters, a real time zone, named tags. `go test` runs the
// seeds of testdata/fuzz/; fuzz with
//
//	go test ./internal/pipeline -run '^$' -fuzz FuzzParseRow -fuzztime 60s
func FuzzParseRow(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, areaCode bool) {
		v, err := valid.ParseJSON(data)
		if err != nil {
			return
		}
		raw, ok := v.(map[string]any)
		if !ok {
			return
		}
		d := Defaults{}
		if areaCode {
			d.AreaCode = "34"
		}
		r := ParseRow(7, raw, d)
		if r.Index != 7 {
			t.Fatalf("index %d", r.Index)
		}
		for _, e := range r.errors {
			if e.Field == "" || e.Message == "" || (e.Code != CodeRequired && e.Code != CodeInvalidFormat) {
				t.Fatalf("row error %+v of %s", e, data)
			}
		}
		if len(r.errors) > 0 {
			return
		}
		if r.ClientID == nil && r.Phone.IsZero() && r.Email == "" {
			t.Fatalf("a row without errors names no contact: %s", data)
		}
		if r.hasPhoneText && (r.Phone.CountryCode <= 0 || r.Phone.National == "" || strings.Trim(r.Phone.National, "0123456789") != "") {
			t.Fatalf("phone %+v from %s", r.Phone, data)
		}
		if r.Email != "" {
			if a, err := mail.ParseAddress(r.Email); err != nil || a.Address != r.Email {
				t.Fatalf("e-mail %q accepted", r.Email)
			}
		}
		for _, s := range []string{r.FirstName, r.LastName} {
			if utf8.RuneCountInString(s) > maxNameLen || s != strings.TrimSpace(s) {
				t.Fatalf("name %q accepted", s)
			}
		}
		if r.Timezone != "" && !contact.ValidZone(r.Timezone) {
			t.Fatalf("time zone %q accepted", r.Timezone)
		}
		for k := range r.Data {
			if k == "" || utf8.RuneCountInString(k) > maxDataKeyLen {
				t.Fatalf("data key %q accepted", k)
			}
		}
		for _, tag := range r.Tags {
			if tag.Name == "" {
				t.Fatalf("unnamed tag accepted from %s", data)
			}
		}
	})
}
