package csvimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/clock"
)

// MaxBatch is the contract's row limit per batch.
const MaxBatch = 500

// BatchTimeout bounds the time limit of one batch request (import
// --timeout): a second to an hour (a 500-row batch takes well under a
// second on a healthy server).
var BatchTimeout = clock.Range{Min: time.Second, Max: time.Hour}

// Statuses this importer adds to the servers' row statuses, for rows the
// server did not answer one by one.
const (
	// StatusRefused: the row's batch was refused as a whole (a 4xx); the
	// row was not written.
	StatusRefused = "refused"
	// StatusUnconfirmed: the batch was sent but no answer came back (network
	// failure, 5xx after every retry, or an interrupt): it may or may not
	// have been written. Running the import again settles it.
	StatusUnconfirmed = "unconfirmed"
	// StatusNotSent: the import stopped before the row's batch.
	StatusNotSent = "not_sent"
)

// statusOrder is the display order of statuses in the summary.
var statusOrder = map[Kind][]string{
	Pipeline: {"created", "updated", "skipped", "failed"},
	Waitlist: {"ok", "will_create_client", "already_waiting", "error", "skip:duplicate_in_file"},
}

// Result is one line of the result file.
type Result struct {
	Row        int // Record.Num
	ExternalID string
	Status     string
	ClientID   *int64
	Errors     []string
	Pipeline   string   // pipeline imports: the placement status
	Warnings   []string // waiting-list imports
}

// Job is one import run. Batches are sent strictly one after another; the
// next one is prepared while the last one is in flight.
type Job struct {
	Kind    Kind
	Table   *Table
	Mapping *Mapping
	// Client sends the batches, each with WithRepeatSafe: its retry policy
	// (client.RetryPolicy, OnRetry included) is the importer's.
	Client    *client.Client
	BatchSize int // default and maximum MaxBatch
	// RequestID, when set, names batch n's requests (X-Request-Id, the same
	// for its retries) so the server's logs can be matched with the import.
	RequestID func(batch int) string

	// Pipeline batch ingest.
	NodeUUID           string
	OnDuplicate        string // "" leaves the server's default (update)
	DryRun             bool
	TriggerAutomations bool
	AllOrNone          bool
	StageID            int64
	AreaCode           string // defaults.area_code

	// Waiting-list batch.
	WaitlistID          int64
	SkipInvalid         bool
	DefaultRegion       string
	ExistingClientsOnly bool
	Services            []string // for rows that name none

	Results  *ResultWriter // nil: no result file
	Progress *Progress     // nil: no progress
	Now      func() time.Time

	onPrepared func(batch int) // tests: a batch is encoded (export_test.go)
}

// Summary is what an import did.
type Summary struct {
	Kind          Kind           `json:"kind"`
	DryRun        bool           `json:"dry_run"`
	Rows          int            `json:"rows"`
	RowsAnswered  int            `json:"rows_answered"` // rows of batches the server answered row by row
	Batches       int            `json:"batches"`
	Retries       int            `json:"retries"`
	Statuses      map[string]int `json:"statuses"`
	Pipeline      map[string]int `json:"pipeline,omitempty"`
	PipelineID    int64          `json:"pipeline_id,omitempty"`
	StageID       int64          `json:"stage_id,omitempty"`
	WaitlistID    int64          `json:"waitlist_id,omitempty"`
	Elapsed       time.Duration  `json:"-"`
	ElapsedSec    float64        `json:"elapsed_seconds"`
	RowsPerSecond float64        `json:"rows_per_second"`
	Complete      bool           `json:"complete"`
	ResultsFile   string         `json:"results_file,omitempty"`
	Stopped       string         `json:"stopped,omitempty"`
}

// StopError says why an import stopped before its last row, what happened
// to the batch at hand, and what to do next.
type StopError struct {
	Batch          int // 1-based
	FirstRow       int
	LastRow        int
	RowsDone       int // rows before this batch, answered
	Err            error
	Interrupted    bool
	InFlight       bool // the interrupt came while the batch was being sent
	Unconfirmed    bool
	Kind           Kind
	FailedRowCount int // refused batch: rows in error
}

func (e *StopError) Unwrap() error { return e.Err }

func (e *StopError) Error() string {
	var b strings.Builder
	rows := fmt.Sprintf("rows %s–%s", Thousands(e.FirstRow), Thousands(e.LastRow))
	settled := "updated / already_active"
	if e.Kind == Waitlist {
		settled = "already_waiting"
	}
	switch {
	case e.Interrupted && e.InFlight:
		fmt.Fprintf(&b, "interrupted during batch %d (%s); that batch may or may not have been written", e.Batch, rows)
	case e.Interrupted:
		fmt.Fprintf(&b, "interrupted before batch %d (%s); it was not sent", e.Batch, rows)
	case e.Unconfirmed:
		fmt.Fprintf(&b, "batch %d (%s) got no answer: %s", e.Batch, rows, reason(e.Err))
	default:
		fmt.Fprintf(&b, "batch %d (%s) was refused: %s", e.Batch, rows, reason(e.Err))
		if e.FailedRowCount > 0 {
			fmt.Fprintf(&b, "\n%s of batch %d %s listed in the result file with %s errors", plural(e.FailedRowCount, "row"), e.Batch,
				map[bool]string{true: "is", false: "are"}[e.FailedRowCount == 1], map[bool]string{true: "its", false: "their"}[e.FailedRowCount == 1])
		}
	}
	if e.RowsDone > 0 {
		fmt.Fprintf(&b, "\nrows 1–%s were answered by the server", Thousands(e.RowsDone))
	}
	b.WriteString("\nnext: ")
	var apiErr *client.Error
	errors.As(e.Err, &apiErr)
	switch {
	case apiErr != nil && apiErr.ErrorCode == client.CodeImportHasErrors:
		fmt.Fprintf(&b, "fix the rows marked error (or pass --skip-invalid) and run the same command again; rows already imported come back as %s", settled)
	case apiErr != nil && apiErr.ErrorCode == client.CodeIngestRolledBack:
		fmt.Fprintf(&b, "fix the rows marked failed (or drop --all-or-none) and run the same command again; rows already imported come back as %s", settled)
	case apiErr != nil && apiErr.StatusCode == 401:
		b.WriteString("check the API key (--key or FRONTDESK_API_KEY)")
	case apiErr != nil && apiErr.StatusCode == 404:
		b.WriteString("check --node / --waitlist and --base-url")
	case apiErr != nil && apiErr.ErrorCode == client.CodeBatchInProgress:
		fmt.Fprintf(&b, "another import into this input node is running; wait for it, then run the same command again (rows already imported come back as %s)", settled)
	case apiErr != nil && !retryable(apiErr):
		fmt.Fprintf(&b, "fix the request, then run the same command again; rows already imported come back as %s", settled)
	default:
		fmt.Fprintf(&b, "run the same command again: re-sending converges (rows already imported come back as %s, nothing is duplicated)", settled)
	}
	return b.String()
}

// Run sends every batch and writes every row's result. The Summary is
// always returned; the error says why the run stopped early (a refused
// batch, a batch with no answer, an interrupt).
//
// Sending is the only step on the critical path: while a batch is in
// flight, the next one is mapped and encoded (prepare), and the results of
// the batches already answered are written to the result file (see
// resultPipe). Batches are still sent strictly one after another, the next
// only once the last one is answered: the contract forbids parallel
// batches for one input node.
func (j *Job) Run(ctx context.Context) (*Summary, error) {
	size := j.BatchSize
	if size <= 0 || size > MaxBatch {
		size = MaxBatch
	}
	now := j.Now
	if now == nil {
		now = time.Now
	}
	rows := j.Table.Rows
	sum := &Summary{Kind: j.Kind, DryRun: j.DryRun, Rows: len(rows), Statuses: map[string]int{}, WaitlistID: j.WaitlistID}
	if j.Kind == Pipeline {
		sum.Pipeline = map[string]int{}
	}
	start := now()
	var chunks [][]Record
	for lo := 0; lo < len(rows); lo += size {
		chunks = append(chunks, rows[lo:min(lo+size, len(rows))])
	}
	out := startResults(j.Results)
	stop, err := j.sendAll(ctx, chunks, sum, out)
	// The result file is complete before Run returns, whatever happened.
	if werr := out.close(); err == nil {
		err = werr
	}
	sum.Elapsed = now().Sub(start)
	sum.ElapsedSec = sum.Elapsed.Seconds()
	if s := sum.Elapsed.Seconds(); s > 0 {
		sum.RowsPerSecond = float64(sum.RowsAnswered) / s
	}
	if err != nil {
		return sum, err
	}
	if stop != nil {
		sum.Stopped = stop.Error()
		return sum, stop
	}
	sum.Complete = true
	return sum, nil
}

// sendAll sends the chunks one after another and hands every row's result
// to out, in file order. It returns why the run stopped early, or an error
// writing the result file (the run stops at once, as the file no longer
// says what happened).
func (j *Job) sendAll(ctx context.Context, chunks [][]Record, sum *Summary, out *resultPipe) (*StopError, error) {
	quit := make(chan struct{})
	next := make(chan preparedBatch) // unbuffered: at most one batch prepared ahead
	prepared := make(chan struct{})
	go func() {
		defer close(prepared)
		j.prepare(chunks, next, quit)
	}()
	stopPreparing := sync.OnceFunc(func() {
		close(quit)
		<-prepared
	})
	defer stopPreparing()

	var stop *StopError
	for _, chunk := range chunks {
		if err := out.err(); err != nil {
			return stop, err
		}
		if stop != nil || ctx.Err() != nil {
			if stop == nil {
				stop = &StopError{Batch: sum.Batches + 1, FirstRow: chunk[0].Num, LastRow: chunk[len(chunk)-1].Num,
					RowsDone: sum.RowsAnswered, Err: ctx.Err(), Interrupted: true, Kind: j.Kind}
			}
			stopPreparing()
			j.record(sum, out, j.uniform(chunk, StatusNotSent, ""))
			continue
		}
		b := <-next
		sum.Batches++
		results, tries, err := j.send(ctx, sum.Batches, b, sum)
		if tries > 1 {
			sum.Retries += tries - 1
		}
		if err != nil {
			stop = &StopError{Batch: sum.Batches, FirstRow: chunk[0].Num, LastRow: chunk[len(chunk)-1].Num,
				RowsDone: sum.RowsAnswered, Err: err, Kind: j.Kind}
			var apiErr *client.Error
			switch {
			case ctx.Err() != nil:
				stop.Interrupted, stop.InFlight = true, true
				results = j.uniform(chunk, StatusUnconfirmed, "interrupted while the batch was in flight; run the import again")
			case errors.As(err, &apiErr) && !retryable(apiErr):
				if refused, failed := j.refusedRows(chunk, apiErr); refused != nil {
					results, stop.FailedRowCount = refused, failed
				} else {
					results = j.uniform(chunk, StatusRefused, "not written: "+reason(apiErr))
				}
			default:
				stop.Unconfirmed = true
				results = j.uniform(chunk, StatusUnconfirmed, reason(err))
			}
		} else {
			sum.RowsAnswered += len(chunk)
		}
		j.record(sum, out, results)
		if j.Progress != nil {
			j.Progress.Add(len(chunk))
		}
	}
	return stop, out.err()
}

// record counts a batch's results and queues them for the result file.
func (j *Job) record(sum *Summary, out *resultPipe, results []Result) {
	for _, r := range results {
		sum.Statuses[r.Status]++
		if j.Kind == Pipeline && r.Pipeline != "" {
			sum.Pipeline[r.Pipeline]++
		}
	}
	out.put(results)
}

// uniform gives every row of a chunk the same status and message.
func (j *Job) uniform(chunk []Record, status, msg string) []Result {
	out := make([]Result, len(chunk))
	for i, rec := range chunk {
		out[i] = Result{Row: rec.Num, ExternalID: j.Mapping.ExternalID(rec), Status: status}
		if msg != "" {
			out[i].Errors = []string{msg}
		}
	}
	return out
}

// preparedBatch is a chunk mapped and encoded ahead of its turn.
type preparedBatch struct {
	chunk   []Record
	payload []byte // the request body
	err     error  // the body could not be built
}

// prepare maps and encodes the chunks in order, handing each over on next
// once the sender takes it, until quit closes.
func (j *Job) prepare(chunks [][]Record, next chan<- preparedBatch, quit <-chan struct{}) {
	var encode func([]Record) ([]byte, error)
	switch j.Kind {
	case Pipeline:
		enc, err := j.newPipelineEncoder()
		encode = func(chunk []Record) ([]byte, error) {
			if err != nil {
				return nil, err
			}
			return enc.encode(chunk), nil
		}
	case Waitlist:
		encode = j.encodeWaitlist
	default:
		encode = func([]Record) ([]byte, error) { return nil, fmt.Errorf("unknown import kind %q", j.Kind) }
	}
	for i, chunk := range chunks {
		payload, err := encode(chunk)
		if j.onPrepared != nil {
			j.onPrepared(i + 1)
		}
		select {
		case next <- preparedBatch{chunk: chunk, payload: payload, err: err}:
		case <-quit:
			return
		}
	}
}

// encodeWaitlist writes the body of one waiting-list batch.
func (j *Job) encodeWaitlist(chunk []Record) ([]byte, error) {
	rows := make([]any, len(chunk))
	for i, rec := range chunk {
		rows[i] = j.Mapping.WaitlistRow(rec, j.Services)
	}
	body := map[string]any{"waitlist_id": j.WaitlistID, "entries": rows, "skip_invalid": j.SkipInvalid}
	if j.DefaultRegion != "" {
		body["default_region"] = j.DefaultRegion
	}
	if j.ExistingClientsOnly {
		body["existing_clients_only"] = true
	}
	return json.Marshal(body)
}

// send sends prepared batch n and turns the answer into one result per
// row. A batch is repeat-safe (re-sent rows converge), so the client
// retries server errors and lost connections by its policy.
func (j *Job) send(ctx context.Context, n int, b preparedBatch, sum *Summary) ([]Result, int, error) {
	if b.err != nil {
		return nil, 0, b.err
	}
	var info client.CallInfo
	opts := []client.CallOption{client.WithRepeatSafe(), client.WithCallInfo(&info)}
	if j.RequestID != nil {
		opts = append(opts, client.WithRequestID(j.RequestID(n)))
	}
	switch j.Kind {
	case Pipeline:
		res, err := j.Client.IngestBatchJSON(ctx, j.NodeUUID, b.payload, opts...)
		if err != nil {
			return nil, info.Attempts, gaveUp(err, info.Attempts)
		}
		sum.PipelineID, sum.StageID = res.PipelineID, res.StageID
		return j.ingestResults(b.chunk, res.Results, ""), info.Attempts, nil
	case Waitlist:
		res, err := j.Client.BatchWaitlistJSON(ctx, b.payload, opts...)
		if err != nil {
			return nil, info.Attempts, gaveUp(err, info.Attempts)
		}
		return j.waitlistResults(b.chunk, res.Rows, ""), info.Attempts, nil
	}
	return nil, 0, fmt.Errorf("unknown import kind %q", j.Kind)
}

// retryable reports an answer that says nothing about the batch itself (a
// server error, a proxy, a rate limit): sending it again may succeed.
func retryable(e *client.Error) bool {
	return e.StatusCode >= 500 || e.StatusCode == 429
}

// reason is an error as the import's messages quote it: about the batch,
// without the client's "frontdesk: " prefix.
func reason(err error) string {
	return strings.ReplaceAll(err.Error(), "frontdesk: ", "")
}

// gaveUp says that the retries ran out for an error that was worth
// retrying; a refusal is returned as it is.
func gaveUp(err error, attempts int) error {
	var apiErr *client.Error
	if errors.As(err, &apiErr) && !retryable(apiErr) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("gave up after %s: %w", plural(attempts, "attempt"), err)
}
