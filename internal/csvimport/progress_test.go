package csvimport_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/csvimport"
)

func TestProgress(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	var b bytes.Buffer
	p := csvimport.NewProgress(&b, false, 1200, fake.Now)
	fake.Advance(time.Second)
	p.Add(500)
	p.Note("batch failed; sending it again")
	fake.Advance(time.Second)
	p.Add(500)
	p.Finish()
	want := "progress: 500/1,200 rows (41%), batch 1, 500 rows/s, elapsed 1.0s, ETA 1.4s\n" +
		"batch failed; sending it again\n" +
		"progress: 1,000/1,200 rows (83%), batch 2, 500 rows/s, elapsed 2.0s, ETA 400ms\n"
	if b.String() != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	p = csvimport.NewProgress(&b, true, 20000, fake.Now)
	fake.Advance(2 * time.Second)
	p.Add(5000)
	p.Note("note")
	p.Finish()
	out := b.String()
	for _, want := range []string{"\r███████░░░░░░░░░░░░░░░░░░░░░░░ 5,000/20,000 rows  25%  2,500 rows/s  ETA 6.0s\x1b[K", "\r\x1b[Knote\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal progress lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the bar's line is not ended: %q", out)
	}

	// No writer: nothing happens, nothing breaks.
	p = csvimport.NewProgress(nil, true, 10, fake.Now)
	p.Add(10)
	p.Note("x")
	p.Finish()
}

func TestFormatting(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20000: "20,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := csvimport.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850ms", 4200 * time.Millisecond: "4.2s",
		187 * time.Second: "3m07s", 62 * time.Minute: "1h02m"} {
		if got := csvimport.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
