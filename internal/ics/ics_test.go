package ics_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	goical "github.com/emersion/go-ical"

	"github.com/frontdesk/frontdesk/internal/ics"
)

// TestWriteReadsBackInAnotherParser writes files with ics and reads them
// with an independent iCalendar parser, as a calendar client would.
func TestWriteReadsBackInAnotherParser(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, madrid)
	stamp := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("Fisioterapia, rodilla; ", 8) + "\nsegunda línea"
	for _, test := range []struct {
		name   string
		cal    ics.Calendar
		status string
	}{
		{"one appointment", ics.Calendar{Events: []ics.Event{{UID: "a-1@frontdesk", Start: start, End: start.Add(30 * time.Minute),
			Summary: "Limpieza con Ana", URL: "https://clinic.example/m/tok", Updated: stamp, Sequence: 2}}}, "CONFIRMED"},
		{"cancelled, long folded text", ics.Calendar{Name: "Ana · Frontdesk", Refresh: time.Hour, Events: []ics.Event{{UID: "a-2@frontdesk",
			Start: start, End: start.Add(time.Hour), Summary: long, Description: long, Location: "Box 1", Cancelled: true}}}, "CANCELLED"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := ics.Write(&buf, test.cal, stamp); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.SplitAfter(buf.String(), "\r\n") {
				if len(line) > 77 {
					t.Errorf("line longer than 75 octets: %q", line)
				}
			}
			cal, err := goical.NewDecoder(&buf).Decode()
			if err != nil {
				t.Fatalf("another parser refuses the file: %v", err)
			}
			if got := cal.Props.Get(goical.PropProductID).Value; got != ics.ProductID {
				t.Errorf("PRODID = %q", got)
			}
			events := cal.Events()
			if len(events) != 1 {
				t.Fatalf("%d events", len(events))
			}
			ev, want := events[0], test.cal.Events[0]
			if uid, _ := ev.Props.Text(goical.PropUID); uid != want.UID {
				t.Errorf("UID = %q, want %q", uid, want.UID)
			}
			gotStart, err := ev.DateTimeStart(time.UTC)
			if err != nil || !gotStart.Equal(want.Start) {
				t.Errorf("DTSTART = %v (%v), want %v", gotStart, err, want.Start)
			}
			gotEnd, err := ev.DateTimeEnd(time.UTC)
			if err != nil || !gotEnd.Equal(want.End) {
				t.Errorf("DTEND = %v (%v), want %v", gotEnd, err, want.End)
			}
			if s, _ := ev.Props.Text(goical.PropSummary); s != want.Summary {
				t.Errorf("SUMMARY = %q, want %q", s, want.Summary)
			}
			if s := ev.Props.Get(goical.PropStatus).Value; s != test.status {
				t.Errorf("STATUS = %q, want %q", s, test.status)
			}
			if want.Description != "" {
				if s, _ := ev.Props.Text(goical.PropDescription); s != want.Description {
					t.Errorf("DESCRIPTION = %q, want %q", s, want.Description)
				}
			}
		})
	}
}
