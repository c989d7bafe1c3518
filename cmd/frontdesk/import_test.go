package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// contactsCSV is what a Spanish spreadsheet exports: BOM, ";" and CRLF,
// quoted fields, blank lines. Row 1 is the fixture's María (same phone and
// e-mail), so it matches an existing client already on the board.
func contactsCSV(n int) string {
	var b strings.Builder
	b.WriteString("\uFEFFID;Nombre;Apellidos;Teléfono;Correo;Etiquetas;Plan\r\n")
	for i := 1; i <= n; i++ {
		phone, email := fmt.Sprintf("+34 61%07d", i), fmt.Sprintf("contacto%d@example.com", i)
		if i == 1 {
			phone, email = "+34 600 111 222", "maria@example.com"
		}
		fmt.Fprintf(&b, "c-%04d;Nombre %d;\"García; %d\";%s;%s;\"csv, lote\";plan-%d\r\n", i, i, i, phone, email, i%3)
		if i%400 == 0 {
			b.WriteString("\r\n;;;;;;\r\n")
		}
	}
	return b.String()
}

func TestImportPipeline(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			fx := newImportFixture(t, e)
			file := fx.write("contacts.csv", contactsCSV(1200))
			clientsBefore := fx.count("clients", "")

			// First run: the second batch's first attempt gets a 500.
			fx.proxy.failNext(2, "before")
			code, stdout, stderr := fx.run(t.Context(), "pipeline", "--node", importNode, "-f", file)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			for _, want := range []string{
				"Imported 1,200 of 1,200 rows into pipeline ", " in 3 batches (1 retry)",
				"  created                     1,199\n", "  updated                         1\n",
				"  pipeline: added 1,199, already_active 1\n", "Results: " + filepath.Join(fx.dir, "contacts.results.csv"),
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("summary lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range []string{
				`"Teléfono" → phone_number`, `"Plan" → data["Plan"]`, "1,200 rows, delimiter \";\", UTF-8 with BOM",
				"HTTP 500 INTERNAL_ERROR", "sending it again", "progress: 500/1,200 rows (41%), batch 1",
				"progress: 1,200/1,200 rows (100%), batch 3",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if calls, most := fx.proxy.stats(); calls != 4 || most != 1 {
				t.Errorf("%d calls (want 3 batches + 1 retry), %d in flight at once", calls, most)
			}
			rows := readResultFile(t, filepath.Join(fx.dir, "contacts.results.csv"))
			if len(rows) != 1200 {
				t.Fatalf("%d result rows", len(rows))
			}
			ids := map[string]bool{}
			for i, r := range rows {
				if r["row"] != strconv.Itoa(i+1) || r["external_id"] != fmt.Sprintf("c-%04d", i+1) || r["client_id"] == "" || r["errors"] != "" {
					t.Fatalf("result row %d: %v", i, r)
				}
				ids[r["client_id"]] = true
			}
			if len(ids) != 1200 || !sameCounts(statusCounts(rows, "status"), map[string]int{"created": 1199, "updated": 1}) ||
				!sameCounts(statusCounts(rows, "pipeline_status"), map[string]int{"added": 1199, "already_active": 1}) || rows[0]["status"] != "updated" {
				t.Errorf("statuses %v / %v, %d distinct ids", statusCounts(rows, "status"), statusCounts(rows, "pipeline_status"), len(ids))
			}
			clients, cards := fx.count("clients", ""), fx.count("cards", "status = 'active'")
			if clients != clientsBefore+1199 || cards != 1200 {
				t.Errorf("%d clients (%d before), %d active cards", clients, clientsBefore, cards)
			}
			var data string
			fx.store.QueryRow(t.Context(), "SELECT data FROM clients WHERE account_id = ? AND phone_national = ?", fx.acctID, "610000005").Scan(&data)
			if data != `{"Plan":"plan-2"}` {
				t.Errorf("custom data %s", data)
			}
			if n := fx.count("client_tags", "client_id = ?", rows[4]["client_id"]); n != 2 {
				t.Errorf("row 5 has %d tags, want csv and lote", n)
			}

			// Re-run: the third batch is written but its answer is lost; the
			// retry converges and nothing is duplicated.
			fx.proxy.failNext(3, "after")
			code, stdout, stderr = fx.run(t.Context(), "pipeline", "--node", importNode, "-f", file, "--json", "--out", filepath.Join(fx.dir, "again.csv"))
			if code != 0 {
				t.Fatalf("re-run exit %d\n%s\n%s", code, stdout, stderr)
			}
			sum := decodeSummary(t, stdout)
			if !sum.Complete || sum.Rows != 1200 || sum.Retries != 1 || !sameCounts(sum.Statuses, map[string]int{"updated": 1200}) ||
				!sameCounts(sum.Pipeline, map[string]int{"already_active": 1200}) || sum.RowsPerSecond <= 0 {
				t.Errorf("re-run summary %+v", sum)
			}
			again := readResultFile(t, filepath.Join(fx.dir, "again.csv"))
			for i, r := range again {
				if r["status"] != "updated" || r["pipeline_status"] != "already_active" || r["client_id"] != rows[i]["client_id"] {
					t.Fatalf("re-run row %d: %v (first run %v)", i, r, rows[i])
				}
			}
			if fx.count("clients", "") != clients || fx.count("cards", "") != cards {
				t.Error("the re-run duplicated clients or cards")
			}

			// A dry run writes nothing and says what would happen.
			extra := fx.write("new.csv", "phone,email\n+34 699000001,\n,nobody@example.com\n+34 610000002,\n")
			code, stdout, _ = fx.run(t.Context(), "pipeline", "--node", importNode, "-f", extra, "--dry-run", "--json", "--quiet")
			sum = decodeSummary(t, stdout)
			if code != 0 || !sum.DryRun || !sameCounts(sum.Statuses, map[string]int{"created": 2, "updated": 1}) ||
				!sameCounts(sum.Pipeline, map[string]int{"not_attempted": 3}) || fx.count("clients", "") != clients {
				t.Errorf("dry run: exit %d %+v", code, sum)
			}
			dry := readResultFile(t, filepath.Join(fx.dir, "new.results.csv"))
			if dry[0]["client_id"] != "" || dry[2]["client_id"] != rows[1]["client_id"] {
				t.Errorf("dry-run ids: %v", dry)
			}
		})
	}
}

func TestImportPipelineStops(t *testing.T) {
	fx := newImportFixture(t, db.SQLite)
	var b strings.Builder
	b.WriteString("external_id,phone_number\n")
	for i := 1; i <= 30; i++ {
		phone := fmt.Sprintf("+34 63%07d", i)
		if i == 25 {
			phone = "600" // a local number without a country code: invalid_format
		}
		fmt.Fprintf(&b, "x-%d,%s\n", i, phone)
	}
	file := fx.write("leads.csv", b.String())
	clients := fx.count("clients", "")

	t.Run("all or none rolls back a batch and stops", func(t *testing.T) {
		code, stdout, stderr := fx.run(t.Context(), "pipeline", "--node", importNode, "-f", file, "--batch-size", "10", "--all-or-none", "--json")
		sum := decodeSummary(t, stdout)
		if code != 1 || !strings.Contains(stderr, "batch 3 (rows 21–30) was refused: HTTP 400 INGEST_ROLLED_BACK") || !strings.Contains(stderr, "--all-or-none") {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if !sameCounts(sum.Statuses, map[string]int{"created": 20, "refused": 9, "failed": 1}) || sum.Complete {
			t.Errorf("summary %+v", sum)
		}
		rows := readResultFile(t, filepath.Join(fx.dir, "leads.results.csv"))
		if r := rows[24]; r["status"] != "failed" || !strings.Contains(r["errors"], "phone_number: ") || !strings.Contains(r["errors"], "[invalid_format]") {
			t.Errorf("failed row %v", r)
		}
		if r := rows[20]; r["status"] != "refused" || r["client_id"] != "" || !strings.Contains(r["errors"], "would have been created") {
			t.Errorf("refused row %v", r)
		}
		if fx.count("clients", "") != clients+20 {
			t.Errorf("clients %d, want %d", fx.count("clients", ""), clients+20)
		}
	})

	t.Run("a bad key is not retried", func(t *testing.T) {
		before, _ := fx.proxy.stats()
		code, _, stderr := fx.run(t.Context(), "pipeline", "--node", importNode, "-f", file, "--key", "pk_wrong_key_123")
		after, _ := fx.proxy.stats()
		if code != 1 || after-before != 1 || !strings.Contains(stderr, "HTTP 401 UNAUTHORIZED: Invalid or expired API key") || !strings.Contains(stderr, "check the API key") {
			t.Errorf("exit %d, %d calls\n%s", code, after-before, stderr)
		}
	})

	t.Run("an unknown node is not retried", func(t *testing.T) {
		before, _ := fx.proxy.stats()
		code, _, stderr := fx.run(t.Context(), "pipeline", "--node", "0b7d6c52-5a52-4c1e-9a57-000000000000", "-f", file)
		after, _ := fx.proxy.stats()
		if code != 1 || after-before != 1 || !strings.Contains(stderr, "HTTP 404 NOT_FOUND") {
			t.Errorf("exit %d, %d calls\n%s", code, after-before, stderr)
		}
	})

	t.Run("interrupted and re-run, it converges", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start, _ := fx.proxy.stats()
		fx.proxy.mu.Lock()
		fx.proxy.onCall = func(n int) {
			if n == start+2 {
				cancel() // Ctrl-C while the second batch is on its way
			}
		}
		fx.proxy.mu.Unlock()
		code, stdout, stderr := fx.run(ctx, "pipeline", "--node", importNode, "-f", file, "--batch-size", "10", "--json", "--on-duplicate", "update")
		fx.proxy.mu.Lock()
		fx.proxy.onCall = nil
		fx.proxy.mu.Unlock()
		sum := decodeSummary(t, stdout)
		if code != 1 || !strings.Contains(stderr, "interrupted") || sum.Statuses["not_sent"] != 10 || sum.Complete {
			t.Fatalf("exit %d %+v\n%s", code, sum, stderr)
		}
		code, stdout, stderr = fx.run(t.Context(), "pipeline", "--node", importNode, "-f", file, "--batch-size", "10", "--json")
		sum = decodeSummary(t, stdout)
		// 29 good rows, all already placed by the earlier runs or placed now;
		// the invalid row fails; nothing is duplicated.
		if code != 0 || sum.Statuses["failed"] != 1 || sum.Statuses["updated"]+sum.Statuses["created"] != 29 || fx.count("clients", "") != clients+29 {
			t.Errorf("re-run: exit %d %+v, %d clients\n%s", code, sum, fx.count("clients", "")-clients, stderr)
		}
		if fx.count("cards", "status = 'active'") != 1+29 {
			t.Errorf("%d active cards", fx.count("cards", "status = 'active'"))
		}
	})
}

func TestImportUsage(t *testing.T) {
	fx := newImportFixture(t, db.SQLite)
	good := fx.write("ok.csv", "phone\n+34600000009\n")
	noContact := fx.write("names.csv", "Nombre,Plan\nAna,gold\n")
	headerOnly := fx.write("empty.csv", "phone\n")
	for _, test := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", nil, 2, "usage:"},
		{"unknown subcommand", []string{"contacts"}, 2, "usage:"},
		{"no file", []string{"pipeline", "--node", importNode}, 2, "-f FILE is required"},
		{"no node", []string{"pipeline", "-f", good}, 2, "--node must be the input node's UUID"},
		{"bad duplicate policy", []string{"pipeline", "--node", importNode, "-f", good, "--on-duplicate", "merge"}, 2, "--on-duplicate must be"},
		{"no waitlist", []string{"waitlist", "-f", good}, 2, "--waitlist ID is required"},
		{"pipeline flag on a waitlist", []string{"waitlist", "--waitlist", "1", "-f", good, "--dry-run"}, 2, "flag provided but not defined"},
		{"batch too large", []string{"pipeline", "--node", importNode, "-f", good, "--batch-size", "501"}, 2, "--batch-size must be 1..500"},
		{"bad delimiter", []string{"pipeline", "--node", importNode, "-f", good, "--delimiter", ":"}, 2, "--delimiter"},
		{"bad base url", []string{"pipeline", "--node", importNode, "-f", good, "--base-url", "localhost:8080"}, 2, "not an http(s) URL"},
		{"bad map", []string{"pipeline", "--node", importNode, "-f", good, "--map", "phone"}, 2, "want FIELD=COLUMN"},
		{"missing file", []string{"pipeline", "--node", importNode, "-f", filepath.Join(fx.dir, "nope.csv")}, 1, "no such file"},
		{"nothing to match contacts by", []string{"pipeline", "--node", importNode, "-f", noContact}, 1, "no column looks like a phone number"},
		{"map to an unknown column", []string{"pipeline", "--node", importNode, "-f", good, "--map", "email=Correo"}, 1, `no column named "Correo"`},
		{"no service for a waiting list", []string{"waitlist", "--waitlist", "1", "-f", good}, 1, "--service NAME"},
		{"header only", []string{"pipeline", "--node", importNode, "-f", headerOnly}, 1, "no data rows"},
		{"output over input", []string{"pipeline", "--node", importNode, "-f", good, "--out", good}, 2, "would overwrite the input"},
	} {
		t.Run(test.name, func(t *testing.T) {
			before, _ := fx.proxy.stats()
			code, _, stderr := fx.run(t.Context(), test.args...)
			after, _ := fx.proxy.stats()
			if code != test.code || !strings.Contains(stderr, test.want) || after != before {
				t.Errorf("exit %d (want %d), %d requests, stderr:\n%s", code, test.code, after-before, stderr)
			}
		})
	}
	// No key anywhere.
	var errb bytes.Buffer
	env := &Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: &errb, Clock: clock.System{}}
	if code := run(t.Context(), []string{"import", "pipeline", "--node", importNode, "-f", good}, env); code != 2 || !strings.Contains(errb.String(), "FRONTDESK_API_KEY") {
		t.Errorf("no key: exit %d %s", code, errb.String())
	}
}

// --map and --service on a waiting list, with a file whose headers say
// nothing the detector knows.
func TestImportMapFlags(t *testing.T) {
	fx := newImportFixture(t, db.SQLite)
	list := strconv.FormatInt(fx.waitlistID, 10)
	file := fx.write("raro.csv", "Quién;Contacto;Urgencia\nAna;+34 640000001;alta\nLuis;640000002;\n")
	code, stdout, stderr := fx.run(t.Context(), "waitlist", "--waitlist", list, "-f", file,
		"--map", "first_name=Quién", "--map", "phone=Contacto", "--map", "priority=urgencia", "--service", "limpieza dental", "--default-region", "ES", "--json")
	sum := decodeSummary(t, stdout)
	if code != 0 || !sameCounts(sum.Statuses, map[string]int{"will_create_client": 2}) {
		t.Fatalf("exit %d %+v\n%s", code, sum, stderr)
	}
	if !strings.Contains(stderr, `"Contacto" → phone`) || !strings.Contains(stderr, `"Urgencia" → priority`) {
		t.Errorf("mapping not shown:\n%s", stderr)
	}
	var prio int
	fx.store.QueryRow(t.Context(), `SELECT e.priority FROM waitlist_entries e JOIN clients c ON c.account_id = e.account_id AND c.id = e.client_id
		WHERE e.account_id = ? AND c.phone_national = ?`, fx.acctID, "640000001").Scan(&prio)
	if prio != 1 {
		t.Errorf("priority %d, want 1 (alta)", prio)
	}
}

// An import killed (SIGKILL) while a batch is in flight leaves a result
// file of complete lines in file order, at most the last answered batch
// behind, and the same command run again settles every row with nothing
// duplicated.
func TestImportKilledMidRun(t *testing.T) {
	fx := newImportFixture(t, db.SQLite)
	file := fx.write("contacts.csv", contactsCSV(50))
	clientsBefore := fx.count("clients", "")
	out := filepath.Join(fx.dir, "killed.results.csv")
	third, release := make(chan struct{}), make(chan struct{})
	fx.proxy.mu.Lock()
	fx.proxy.onCall = func(n int) {
		if n == 3 {
			close(third)
			<-release
		}
	}
	fx.proxy.mu.Unlock()
	args := []string{"import", "pipeline", "--node", importNode, "-f", file, "--batch-size", "10", "--out", out, "--quiet",
		"--base-url", fx.url, "--key", importKey}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FRONTDESK_CHILD_ARGS="+strings.Join(args, "\x1f"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-third:
	case <-time.After(time.Minute): // a failsafe, not a measurement
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the import never sent its third batch")
	}
	cmd.Process.Kill() // batch 3 is in flight
	cmd.Wait()
	close(release)
	fx.proxy.mu.Lock()
	fx.proxy.onCall = nil
	fx.proxy.mu.Unlock()

	// Batch 3 left only once batch 1 was in the file; batch 2 may be there.
	rows := readResultFile(t, out)
	if len(rows) != 10 && len(rows) != 20 {
		t.Fatalf("%d result lines after the kill, want batch 1's 10 (and maybe batch 2's)", len(rows))
	}
	for i, r := range rows {
		if r["row"] != strconv.Itoa(i+1) || r["external_id"] != fmt.Sprintf("c-%04d", i+1) || r["client_id"] == "" {
			t.Fatalf("result line %d: %v", i+1, r)
		}
	}

	code, stdout, stderr := fx.run(t.Context(), "pipeline", "--node", importNode, "-f", file, "--batch-size", "10", "--out", out, "--json")
	sum := decodeSummary(t, stdout)
	if code != 0 || !sum.Complete || sum.Statuses["created"]+sum.Statuses["updated"] != 50 {
		t.Fatalf("re-run: exit %d %+v\n%s", code, sum, stderr)
	}
	if n := fx.count("clients", ""); n != clientsBefore+49 { // row 1 is the fixture's María
		t.Errorf("%d new clients, want 49", n-clientsBefore)
	}
	if n := fx.count("cards", "status = 'active'"); n != 50 {
		t.Errorf("%d active cards, want 50", n)
	}
	if rows := readResultFile(t, out); len(rows) != 50 || rows[49]["row"] != "50" {
		t.Errorf("re-run result file has %d lines", len(rows))
	}
}
