package csvimport_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/csvimport"
)

func TestSummaryPrint(t *testing.T) {
	sum := &csvimport.Summary{Kind: csvimport.Pipeline, Rows: 20000, RowsAnswered: 20000, Batches: 40, Retries: 1,
		Statuses: map[string]int{"created": 19990, "updated": 10, "failed": 0}, Pipeline: map[string]int{"added": 19990, "already_active": 10},
		PipelineID: 1, StageID: 3, Elapsed: 8 * time.Second, RowsPerSecond: 2500, Complete: true, ResultsFile: "contacts.results.csv"}
	var b bytes.Buffer
	sum.Print(&b)
	want := "Imported 20,000 of 20,000 rows into pipeline 1, stage 3, in 40 batches (1 retry): 8.0s, 2,500 rows/s\n" +
		"  created                    19,990\n" +
		"  updated                        10\n" +
		"  pipeline: added 19,990, already_active 10\n" +
		"Results: contacts.results.csv\n"
	if b.String() != want {
		t.Errorf("\n got:\n%s\nwant:\n%s", b.String(), want)
	}
	wl := &csvimport.Summary{Kind: csvimport.Waitlist, WaitlistID: 2, Rows: 3, RowsAnswered: 0, Batches: 1,
		Statuses: map[string]int{"refused": 2, "error": 1}, Elapsed: 4 * time.Millisecond}
	b.Reset()
	wl.Print(&b)
	if !strings.HasPrefix(b.String(), "Stopped after 0 of 3 rows into waiting list 2, in 1 batch: 4ms, 0 rows/s\n  error") {
		t.Errorf("got:\n%s", b.String())
	}
}
