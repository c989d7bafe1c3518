package bookingpage

import (
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// TestDecoders drives each form decoder with what a patient (or a
// tampered link) may send.
func TestDecoders(t *testing.T) {
	for _, test := range []struct {
		query string
		want  slotChoice
		ok    bool
	}{
		{"service=3&start=2026-12-01T10:00:00", slotChoice{ServiceID: 3, Start: "2026-12-01T10:00:00"}, true},
		{"service=3&professional=any&start=2026-12-01T10:00", slotChoice{ServiceID: 3, Start: "2026-12-01T10:00:00"}, true},
		{"service=3&professional=7&start=2026-12-01T10:00:00", slotChoice{ServiceID: 3, ProfessionalID: 7, Start: "2026-12-01T10:00:00"}, true},
		{"service=3&start=2026-12-01T10:00:00Z", slotChoice{}, false},
		{"service=3&start=2026-13-01T10:00:00", slotChoice{}, false},
		{"service=0&start=2026-12-01T10:00:00", slotChoice{}, false},
		{"service=-1&start=2026-12-01T10:00:00", slotChoice{}, false},
		{"service=3&professional=x&start=2026-12-01T10:00:00", slotChoice{}, false},
		{"start=2026-12-01T10:00:00", slotChoice{}, false},
	} {
		q, _ := url.ParseQuery(test.query)
		got, ok := decodeSlotChoice(q)
		if got != test.want || ok != test.ok {
			t.Errorf("%s: %+v %v, want %+v %v", test.query, got, ok, test.want, test.ok)
		}
	}
	for in, want := range map[string]string{"123456": "123456", "123 456": "123456", "12-34-56": "123456", "12345": "", "1234567": "", "12a456": "", "١٢٣٤٥٦": ""} {
		if got, _ := decodeCode(in); got != want {
			t.Errorf("code %q: %q, want %q", in, got, want)
		}
	}
	d, bad := decodeDetails(url.Values{"phone": {" +34 611\n222 333 "}, "first_name": {"Ana\x00"}, "last_name": {""}})
	if d.Phone != "+34 611 222 333" || d.FirstName != "Ana" || bad["last_name"] != msgLastRequired || bad["phone"] != "" {
		t.Errorf("details: %+v %v", d, bad)
	}
	if _, bad := decodeDetails(url.Values{"phone": {"1"}, "first_name": {strings.Repeat("a", maxField+1)}, "last_name": {"B"}}); bad["first_name"] != msgTooLong {
		t.Errorf("a long name: %v", bad)
	}
	for in, want := range map[string]string{"2026-12-07": "2026-12-07", "2026-02-30": "", "next": "", "": ""} {
		if got := decodeWeek(in); got != want {
			t.Errorf("week %q: %q, want %q", in, got, want)
		}
	}
}

// FuzzFormDecoders: whatever a form or a link carries, the decoders never
// panic, and what they accept is what the page can use — a positive
// service, a wall-clock start that reads back the same, six digits, a
// valid date, and single-line texts within their bounds.
func FuzzFormDecoders(f *testing.F) {
	f.Add("3", "any", "2026-12-01T10:00:00", "+34 611 222 333", "Ana", "López", "ana@example.test", "123 456", "2026-12-07", "Me he curado")
	f.Add("-1", "0", "2026-12-01T10:00:00Z", "", "", "", "", "12a456", "2026-02-30", "")
	f.Fuzz(func(t *testing.T, service, professional, start, phone, first, last, email, code, week, reason string) {
		q := url.Values{"service": {service}, "professional": {professional}, "start": {start}}
		if choice, ok := decodeSlotChoice(q); ok {
			if choice.ServiceID <= 0 || choice.ProfessionalID < 0 {
				t.Fatalf("accepted %+v", choice)
			}
			w, ok := decodeStart(choice.Start)
			if !ok || wallString(w) != choice.Start {
				t.Fatalf("the start %q does not read back", choice.Start)
			}
		}
		d, bad := decodeDetails(url.Values{"phone": {phone}, "first_name": {first}, "last_name": {last}, "email": {email}})
		if len(bad) == 0 && (d.Phone == "" || d.FirstName == "" || d.LastName == "") {
			t.Fatalf("accepted details without a required field: %+v", d)
		}
		for _, v := range []string{d.Phone, d.FirstName, d.LastName, d.Email} {
			if !utf8.ValidString(v) || strings.ContainsAny(v, "\n\r\t\x00") || v != strings.TrimSpace(v) {
				t.Fatalf("a field is not one clean line: %q", v)
			}
		}
		if c, bad := decodeCode(code); len(bad) == 0 {
			if len(c) != 6 || strings.Trim(c, "0123456789") != "" {
				t.Fatalf("accepted the code %q as %q", code, c)
			}
		}
		if w := decodeWeek(week); w != "" {
			if _, err := time.Parse(time.DateOnly, w); err != nil {
				t.Fatalf("accepted the week %q", w)
			}
		}
		if r, bad := decodeReason(reason); len(bad) == 0 && (utf8.RuneCountInString(r) > maxReason || !utf8.ValidString(r)) {
			t.Fatalf("accepted the reason %q", r)
		}
	})
}

// TestRefusalsInThePagesWords: each of the patients' refusals is said in
// the page's own words in both languages (the API's message names fields
// a patient never saw), any other in the area's.
func TestRefusalsInThePagesWords(t *testing.T) {
	for _, code := range []string{errs.SlotNotAvailable, errs.VerificationFailed, errs.BookingLimitReached, errs.RateLimited, errs.ChangeNotAllowed, errs.ServiceNotFound} {
		e := errs.New(code, "start_at is not a free slot of this service now.")
		for _, l := range []lang{"es", "en"} {
			if got := say(l, e); got == e.Message || got == "" || (l == "es" && got == say("en", e)) {
				t.Errorf("%s in %s: %q", code, l, got)
			}
		}
	}
	other := errs.New(errs.InvalidPhone, "This is not a phone number we can reach: check the digits and the country code.")
	if got := say("es", other); got == other.Message {
		t.Errorf("an area's refusal in Spanish: %q", got)
	}
	if statusOf(errs.RateLimited) != 429 || statusOf(errs.ChangeNotAllowed) != 409 || statusOf(errs.SlotNotAvailable) != 400 {
		t.Error("statuses differ from the patient API's")
	}
}
