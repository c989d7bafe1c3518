package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
)

// patientsCSV is an English export: commas, service names, priority words.
func patientsCSV(n int, bad map[int]string) string {
	var b strings.Builder
	b.WriteString("Ref,Patient,Mobile,Service,Priority\n")
	for i := 1; i <= n; i++ {
		phone := fmt.Sprintf("+34 62%07d", i)
		if p, ok := bad[i]; ok {
			phone = p
		}
		fmt.Fprintf(&b, "w-%d,Paciente %d,%s,Limpieza dental,%s\n", i, i, phone, []string{"urgent", "high", "normal", "low"}[i%4])
	}
	return b.String()
}

func TestImportWaitlist(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			fx := newImportFixture(t, e)
			list := strconv.FormatInt(fx.waitlistID, 10)
			file := fx.write("patients.csv", patientsCSV(1200, map[int]string{7: "+34 600 111 222"})) // row 7 is María

			fx.proxy.failNext(3, "before")
			code, stdout, stderr := fx.run(t.Context(), "waitlist", "--waitlist", list, "-f", file, "--json")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			sum := decodeSummary(t, stdout)
			if !sum.Complete || sum.Batches != 3 || sum.Retries != 1 || !sameCounts(sum.Statuses, map[string]int{"ok": 1, "will_create_client": 1199}) {
				t.Errorf("summary %+v", sum)
			}
			if calls, most := fx.proxy.stats(); calls != 4 || most != 1 {
				t.Errorf("%d calls, %d in flight at once", calls, most)
			}
			rows := readResultFile(t, filepath.Join(fx.dir, "patients.results.csv"))
			if len(rows) != 1200 || rows[0]["external_id"] != "w-1" || rows[6]["status"] != "ok" || rows[1199]["row"] != "1200" || rows[1199]["client_id"] == "" {
				t.Fatalf("results: %d rows, %v %v", len(rows), rows[0], rows[6])
			}
			entries := fx.count("waitlist_entries", "status = 'waiting'")
			if entries != 1200 {
				t.Errorf("%d waiting entries", entries)
			}
			var prio int
			fx.store.QueryRow(t.Context(), "SELECT priority FROM waitlist_entries WHERE account_id = ? AND client_id = ?", fx.acctID, rows[3]["client_id"]).Scan(&prio)
			if prio != 0 { // row 4: "urgent"
				t.Errorf("row 4 priority %d", prio)
			}

			// Re-run, with a lost answer: every row is already waiting.
			fx.proxy.failNext(2, "after")
			code, stdout, stderr = fx.run(t.Context(), "waitlist", "--waitlist", list, "-f", file, "--json")
			sum = decodeSummary(t, stdout)
			if code != 0 || !sameCounts(sum.Statuses, map[string]int{"already_waiting": 1200}) || sum.Retries != 1 {
				t.Errorf("re-run: exit %d %+v\n%s", code, sum, stderr)
			}
			if fx.count("waitlist_entries", "") != entries {
				t.Error("the re-run duplicated entries")
			}
		})
	}
}

// A row error refuses its whole batch (skip_invalid false): the import stops
// there, says so, lists the rows, exits non-zero; with --skip-invalid the
// same command then converges.
func TestImportWaitlistRefusedBatch(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			fx := newImportFixture(t, e)
			list := strconv.FormatInt(fx.waitlistID, 10)
			file := fx.write("patients.csv", patientsCSV(30, map[int]string{15: "123"}))
			code, stdout, stderr := fx.run(t.Context(), "waitlist", "--waitlist", list, "-f", file, "--batch-size", "10")
			if code != 1 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			for _, want := range []string{"batch 2 (rows 11–20) was refused: HTTP 400 IMPORT_HAS_ERRORS", "1 row of batch 2 is listed",
				"rows 1–10 were answered", "--skip-invalid"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if !strings.Contains(stdout, "Stopped after 10 of 30 rows") {
				t.Errorf("summary:\n%s", stdout)
			}
			rows := readResultFile(t, filepath.Join(fx.dir, "patients.results.csv"))
			if len(rows) != 30 || !sameCounts(statusCounts(rows, "status"), map[string]int{"will_create_client": 10, "refused": 9, "error": 1, "not_sent": 10}) ||
				rows[14]["status"] != "error" || !strings.Contains(rows[14]["errors"], "phone") ||
				!strings.Contains(rows[10]["errors"], "not written: batch refused (IMPORT_HAS_ERRORS)") {
				t.Fatalf("results %v", statusCounts(rows, "status"))
			}
			if n := fx.count("waitlist_entries", ""); n != 10 {
				t.Errorf("%d entries after the refused batch, want the first batch's 10", n)
			}

			code, stdout, stderr = fx.run(t.Context(), "waitlist", "--waitlist", list, "-f", file, "--batch-size", "10", "--skip-invalid", "--json")
			sum := decodeSummary(t, stdout)
			if code != 0 || !sameCounts(sum.Statuses, map[string]int{"already_waiting": 10, "will_create_client": 19, "error": 1}) {
				t.Errorf("with --skip-invalid: exit %d %+v\n%s", code, sum, stderr)
			}
			if n := fx.count("waitlist_entries", ""); n != 29 {
				t.Errorf("%d entries, want 29", n)
			}
		})
	}
}
