package csvimport

// What became of each row: the API's answer per row, the result file
// written beside the input (a CSV with a status column), and its writer
// running aside so the next batch is not held up.

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/frontdesk/frontdesk/client"
)

// ingestResults pairs row results with the chunk by index. refusal, when
// set, marks the rows of a rolled-back batch that did not fail themselves.
func (j *Job) ingestResults(chunk []Record, rows []client.IngestRowResult, refusal string) []Result {
	out := j.uniform(chunk, StatusUnconfirmed, "the server's answer has no result for this row")
	for _, r := range rows {
		if r.Index < 0 || r.Index >= len(chunk) {
			continue
		}
		res := &out[r.Index]
		res.Status, res.ClientID, res.Pipeline, res.Errors = r.Status, r.ClientID, r.Pipeline.Status, nil
		for _, e := range r.Errors {
			res.Errors = append(res.Errors, e.String())
		}
		if refusal != "" && r.Status != "failed" {
			res.Errors = append(res.Errors, fmt.Sprintf("not written: %s; would have been %s", refusal, r.Status))
			res.Status, res.ClientID, res.Pipeline = StatusRefused, nil, ""
		}
	}
	return out
}

func (j *Job) waitlistResults(chunk []Record, rows []client.WaitlistBatchRow, refusal string) []Result {
	out := j.uniform(chunk, StatusUnconfirmed, "the server's answer has no result for this row")
	for _, r := range rows {
		if r.Index < 0 || r.Index >= len(chunk) {
			continue
		}
		res := &out[r.Index]
		res.Status, res.ClientID, res.Errors, res.Warnings = r.Status, r.ClientID, r.Errors, r.Warnings
		if refusal != "" && r.Status != "error" {
			res.Errors = append(res.Errors, fmt.Sprintf("not written: %s; would have been %s", refusal, r.Status))
			res.Status, res.ClientID = StatusRefused, nil
		}
	}
	return out
}

// refusedRows reads the per-row results a whole-batch refusal carries in
// its details (INGEST_ROLLED_BACK, IMPORT_HAS_ERRORS); nil when it carries
// none.
func (j *Job) refusedRows(chunk []Record, e *client.Error) ([]Result, int) {
	why := "batch refused (" + e.ErrorCode + ")"
	switch {
	case j.Kind == Pipeline && e.ErrorCode == client.CodeIngestRolledBack:
		var d client.IngestRolledBackDetails
		if e.DecodeDetails(&d) != nil || len(d.Results) == 0 {
			return nil, 0
		}
		return j.ingestResults(chunk, d.Results, why), d.Summary.Failed
	case j.Kind == Waitlist && e.ErrorCode == client.CodeImportHasErrors:
		var d client.ImportHasErrorsDetails
		if e.DecodeDetails(&d) != nil || len(d.Rows) == 0 {
			return nil, 0
		}
		return j.waitlistResults(chunk, d.Rows, why), d.Summary.Error
	}
	return nil, 0
}

// ResultWriter writes the result file: one line per input row, in file
// order, flushed after every batch so an interrupted run leaves a useful
// file behind.
type ResultWriter struct {
	w    *csv.Writer
	kind Kind
}

// NewResultWriter writes the header. The file uses the input's delimiter (a
// ";" file opens in the same spreadsheet as its input) and a BOM when
// bom is set (Excel needs it to read UTF-8).
func NewResultWriter(w io.Writer, kind Kind, delim rune, bom bool) (*ResultWriter, error) {
	if bom {
		if _, err := io.WriteString(w, "\uFEFF"); err != nil {
			return nil, err
		}
	}
	cw := csv.NewWriter(w)
	if delim != 0 {
		cw.Comma = delim
	}
	header := []string{"row", "external_id", "status", "client_id", "errors"}
	if kind == Pipeline {
		header = append(header, "pipeline_status")
	} else {
		header = append(header, "warnings")
	}
	cw.Write(header)
	cw.Flush()
	return &ResultWriter{w: cw, kind: kind}, cw.Error()
}

// Write writes results and flushes.
func (rw *ResultWriter) Write(results []Result) error {
	for _, r := range results {
		id := ""
		if r.ClientID != nil {
			id = strconv.FormatInt(*r.ClientID, 10)
		}
		line := []string{strconv.Itoa(r.Row), r.ExternalID, r.Status, id, strings.Join(r.Errors, "; ")}
		if rw.kind == Pipeline {
			line = append(line, r.Pipeline)
		} else {
			line = append(line, strings.Join(r.Warnings, "; "))
		}
		rw.w.Write(line)
	}
	rw.w.Flush()
	return rw.w.Error()
}

// resultPipe writes results to the result file on a goroutine of its own,
// in the order they are handed over, flushed batch by batch. A batch's
// results are written while the next batch is in flight, and the file lags
// by at most that one batch: handing over batch n waits until batch n-1 is
// written. So a slow disk slows the import instead of filling memory, and
// a run killed while batch n+1 is in flight leaves complete lines for at
// least rows 1 to the end of batch n-1 (running the same command again
// settles everything, whatever the file holds).
type resultPipe struct {
	w    *ResultWriter
	ch   chan []Result
	done chan struct{}

	mu   sync.Mutex
	fail error // the first write error; later results are dropped
}

// startResults starts writing to w; nil w writes nothing.
func startResults(w *ResultWriter) *resultPipe {
	p := &resultPipe{w: w}
	if w == nil {
		return p
	}
	p.ch, p.done = make(chan []Result), make(chan struct{}) // unbuffered: one batch behind at most
	go func() {
		defer close(p.done)
		for results := range p.ch {
			if p.err() != nil {
				continue
			}
			if err := w.Write(results); err != nil {
				p.mu.Lock()
				p.fail = err
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *resultPipe) put(results []Result) {
	if p.ch != nil {
		p.ch <- results
	}
}

// err is the first write error so far.
func (p *resultPipe) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fail
}

// close waits for every queued result to be written.
func (p *resultPipe) close() error {
	if p.ch != nil {
		close(p.ch)
		<-p.done
	}
	return p.err()
}
