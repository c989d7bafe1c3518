package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/csvimport"
)

const importUsage = `usage:
  frontdesk import pipeline --node UUID -f contacts.csv [flags]
  frontdesk import waitlist --waitlist ID -f patients.csv [flags]

Sends the file in batches of 500 rows, one batch at a time, through the
public API (--base-url, env FRONTDESK_BASE_URL; --key, env FRONTDESK_API_KEY)
and writes one result line per row to --out (default <input>.results.csv).
Columns are recognised by name (English or Spanish, any case or accents);
override with --map FIELD=COLUMN (repeatable). Run "frontdesk import pipeline
-h" for every flag.
`

// mapFlags collects repeated --map FIELD=COLUMN values.
type mapFlags []csvimport.Override

func (m *mapFlags) String() string { return "" }

func (m *mapFlags) Set(v string) error {
	o, err := csvimport.ParseOverride(v)
	if err != nil {
		return err
	}
	*m = append(*m, o)
	return nil
}

// listFlags collects a repeatable flag whose values may also be comma lists.
type listFlags []string

func (l *listFlags) String() string { return strings.Join(*l, ",") }

func (l *listFlags) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// cmdImport loads a CSV file through the public API's batch endpoints
// (docs/contract.md, Batch ingest and Waiting-list batch): "import pipeline" into an API input node,
// "import waitlist" into a waiting list.
func cmdImport(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, importUsage, "pipeline", "waitlist"); err != nil {
		return err
	}
	kind := csvimport.Kind(args[0])
	f := &flags{FlagSet: flag.NewFlagSet("import "+args[0], flag.ContinueOnError), stdout: env.Stdout}
	f.SetOutput(env.Stderr)
	file := f.String("f", "", "CSV file to import (required)")
	f.StringVar(file, "file", "", "same as -f")
	baseURL := f.String("base-url", envOr(env, "FRONTDESK_BASE_URL", "http://127.0.0.1:8080"), "server address (env FRONTDESK_BASE_URL)")
	key := f.String("key", env.Getenv("FRONTDESK_API_KEY"), "API key (env FRONTDESK_API_KEY)")
	var maps mapFlags
	f.Var(&maps, "map", "FIELD=COLUMN: read FIELD from the column with that header (repeatable); FIELD may be data.KEY (pipelines) or - to skip the column")
	out := f.String("out", "", "result file (default <input>.results.csv)")
	delim := f.String("delimiter", "", `field delimiter: "," ";" "tab" or "|" (default: detected from the header line)`)
	batchSize := f.Int("batch-size", csvimport.MaxBatch, "rows per batch (1..500)")
	retries := f.Int("retries", 5, "times a batch is sent again after a 5xx answer, a 429 (after its Retry-After) or a network error (other 4xx answers are never retried)")
	timeout := f.DurationIn("timeout", 2*time.Minute, csvimport.BatchTimeout, "time limit for one batch request")
	asJSON := f.Bool("json", false, "print the summary as JSON")
	quiet := f.Bool("quiet", false, "no progress and no column listing on stderr")
	cpuProfile := f.String("cpuprofile", "", "write a CPU profile of the import (reading, mapping, encoding, sending) to this file (go tool pprof)")

	var (
		node, onDup, areaCode     *string
		dryRun, noAuto, allOrNone *bool
		stageID, waitlistID       *int64
		skipInvalid, existingOnly *bool
		region                    *string
		services                  listFlags
	)
	if kind == csvimport.Pipeline {
		node = f.String("node", "", "UUID of the API input node (required)")
		dryRun = f.Bool("dry-run", false, "validate and match every row without writing anything")
		onDup = f.String("on-duplicate", "update", "when a row matches an existing client: update, skip or fail")
		noAuto = f.Bool("no-automations", false, "do not fire the stage's on-arrival automations")
		allOrNone = f.Bool("all-or-none", false, "per batch: any failed row rolls back its whole batch (and stops the import)")
		stageID = f.Int64("stage-id", 0, "place clients on this stage instead of the node's target stage")
		areaCode = f.String("area-code", "", "country calling code for phones without one, e.g. 34 (rows' own area_code wins)")
	} else {
		waitlistID = f.Int64("waitlist", 0, "id of the waiting list (required)")
		skipInvalid = f.Bool("skip-invalid", false, "write the valid rows of a batch and report the rest (default: a batch with any row error is refused)")
		region = f.String("default-region", "", "ISO 3166 region for phones without a country code, e.g. ES (default: the account's)")
		existingOnly = f.Bool("existing-only", false, "never create clients: unknown phones or e-mails are row errors")
		f.Var(&services, "service", "service name or id for rows that name none (repeatable or comma-separated)")
	}
	if err := f.parse(args[1:]); err != nil {
		return err
	}

	usageErr := func(format string, a ...any) error {
		fmt.Fprintf(env.Stderr, "import %s: "+format+"\n", append([]any{kind}, a...)...)
		return errUsage
	}
	if *file == "" {
		return usageErr("-f FILE is required")
	}
	if *key == "" {
		return usageErr("an API key is required: --key or FRONTDESK_API_KEY")
	}
	if u, err := url.Parse(*baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErr("--base-url %q is not an http(s) URL", *baseURL)
	}
	if *batchSize < 1 || *batchSize > csvimport.MaxBatch {
		return usageErr("--batch-size must be 1..%d", csvimport.MaxBatch)
	}
	if *retries < 0 {
		return usageErr("--retries must be 0 or more")
	}
	var comma rune
	switch *delim {
	case "":
	case "tab", `\t`, "\t":
		comma = '\t'
	case ",", ";", "|":
		comma = rune((*delim)[0])
	default:
		return usageErr("--delimiter must be one of , ; tab |")
	}
	if kind == csvimport.Pipeline {
		if !uuidPattern.MatchString(*node) {
			return usageErr("--node must be the input node's UUID (see GET /api/v2/public/leadflow/pipelines/{id}/input-nodes)")
		}
		if *onDup != "update" && *onDup != "skip" && *onDup != "fail" {
			return usageErr("--on-duplicate must be update, skip or fail")
		}
	} else if *waitlistID <= 0 {
		return usageErr("--waitlist ID is required (see GET /api/v2/public/calendar/waitlist/summary)")
	}

	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	table, err := readTable(*file, comma)
	if err != nil {
		return err
	}
	mapping, notices, err := csvimport.Detect(kind, table.Header, maps)
	if err != nil {
		return err
	}
	if err := mapping.Check(len(services) > 0); err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	if len(table.Rows) == 0 {
		return fmt.Errorf("%s has a header but no data rows", *file)
	}
	if !*quiet {
		fmt.Fprintf(env.Stderr, "%s: %s rows, delimiter %s, %s%s\n", *file, csvimport.Thousands(len(table.Rows)),
			delimName(table.Delimiter), table.Encoding, map[bool]string{true: " with BOM"}[table.BOM])
		for _, line := range mapping.Describe() {
			fmt.Fprintln(env.Stderr, "  "+line)
		}
		for _, n := range notices {
			fmt.Fprintln(env.Stderr, "note: "+n)
		}
	}

	outPath := *out
	if outPath == "" {
		outPath = strings.TrimSuffix(*file, filepath.Ext(*file)) + ".results.csv"
	}
	if same(outPath, *file) {
		return usageErr("--out %s would overwrite the input file", outPath)
	}
	outFile, err := os.Create(outPath)
	if err != nil {
		return err
	}
	defer outFile.Close()
	results, err := csvimport.NewResultWriter(outFile, kind, table.Delimiter, table.BOM || table.Encoding != csvimport.EncUTF8)
	if err != nil {
		return err
	}

	var progress *csvimport.Progress
	if !*quiet {
		progress = csvimport.NewProgress(env.Stderr, isTerminal(env.Stderr), len(table.Rows), env.Clock.Now)
	} else {
		progress = csvimport.NewProgress(nil, false, len(table.Rows), env.Clock.Now)
	}
	runID := newRunID()
	api := client.New(*baseURL, *key,
		client.WithHTTPClient(&http.Client{Timeout: *timeout}),
		client.WithUserAgent("frontdesk-import/"+buildVersion()),
		client.WithRetry(client.RetryPolicy{MaxAttempts: *retries + 1, BaseDelay: 500 * time.Millisecond, MaxDelay: 15 * time.Second,
			OnRetry: func(n int, err error, wait time.Duration) {
				progress.Note("batch failed (%v); sending it again in %s (retry %d of %d)", err, csvimport.Duration(wait), n, *retries)
			}}))
	job := &csvimport.Job{
		Kind: kind, Table: table, Mapping: mapping, Client: api, BatchSize: *batchSize,
		RequestID: func(batch int) string { return fmt.Sprintf("import-%s-%d", runID, batch) },
		Results:   results, Progress: progress, Now: env.Clock.Now,
	}
	if kind == csvimport.Pipeline {
		job.NodeUUID, job.OnDuplicate, job.DryRun = strings.ToLower(*node), *onDup, *dryRun
		job.TriggerAutomations, job.AllOrNone, job.StageID, job.AreaCode = !*noAuto, *allOrNone, *stageID, strings.TrimSpace(*areaCode)
	} else {
		job.WaitlistID, job.SkipInvalid, job.DefaultRegion = *waitlistID, *skipInvalid, strings.TrimSpace(*region)
		job.ExistingClientsOnly, job.Services = *existingOnly, services
	}

	sum, runErr := job.Run(ctx)
	progress.Finish()
	sum.ResultsFile = outPath
	if err := outFile.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		sum.Print(env.Stdout)
	}
	var stop *csvimport.StopError
	if errors.As(runErr, &stop) {
		return fmt.Errorf("import %s stopped: %w", kind, runErr)
	}
	return runErr
}

func readTable(path string, comma rune) (*csvimport.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := csvimport.Read(f, comma)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

func delimName(r rune) string {
	if r == '\t' {
		return "tab"
	}
	return fmt.Sprintf("%q", string(r))
}

// same reports two paths naming one file.
func same(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// isTerminal reports a character device (a terminal) behind w; pipes, files
// and test buffers get plain progress lines.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
