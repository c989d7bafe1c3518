package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const waitlistBatchPath = "/api/v2/public/calendar/waitlist/entries/batch"

// applyAcme applies the acme fixture with the command line and returns its
// ids.
func applyAcme(t *testing.T, dsn string) (ids struct {
	Services  map[string]int64 `json:"services"`
	Waitlists map[string]int64 `json:"waitlists"`
}) {
	t.Helper()
	code, stdout, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", "../../internal/workspace/testdata/acme.yaml")
	if code != 0 {
		t.Fatal(stderr)
	}
	var out struct {
		IDs *struct {
			Services  map[string]int64 `json:"services"`
			Waitlists map[string]int64 `json:"waitlists"`
		} `json:"ids"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.IDs == nil {
		t.Fatalf("apply output %q: %v", stdout, err)
	}
	ids.Services, ids.Waitlists = out.IDs.Services, out.IDs.Waitlists
	return ids
}

// post sends body to a child server with acme's key and decodes the answer.
func post(addr, path string, body []byte) (int, map[string]any, error) {
	req, _ := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer pk_test_acme_main")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("status %d, body %q: %w", resp.StatusCode, raw, err)
	}
	return resp.StatusCode, m, nil
}

// waitlistBatch is a 500-row waiting-list batch of new contacts whose
// national numbers all start with 62 and the two digits of set.
func waitlistBatch(listID, serviceID int64, set int) []byte {
	rows := make([]map[string]any, 500)
	for i := range rows {
		rows[i] = map[string]any{"phone": fmt.Sprintf("+3462%02d%05d", set, i), "first_name": "Crash", "last_name": fmt.Sprint(i),
			"email": fmt.Sprintf("crash%d.%d@example.com", set, i), "service_ids": []int64{serviceID}, "priority": i % 4, "notes": "kill -9"}
	}
	body, _ := json.Marshal(map[string]any{"waitlist_id": listID, "entries": rows})
	return body
}

// summaryOf reads data.summary[status] of a waiting-list batch answer.
func summaryOf(m map[string]any, status string) int {
	data, _ := m["data"].(map[string]any)
	s, _ := data["summary"].(map[string]any)
	f, _ := s[status].(float64)
	return int(f)
}

// The server killed with SIGKILL at a random moment of a 500-row
// waiting-list batch leaves the whole batch (clients and entries) or none of
// it; re-sending converges: every row already_waiting when the batch had
// committed, every row written once when it had not. -crash-trials sets the
// trials per engine (the long version uses 50).
func TestCrashDuringWaitlistBatch(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			ids := applyAcme(t, dsn)
			listID, serviceID := ids.Waitlists["main"], ids.Services["cleaning"]
			store, err := db.Open(context.Background(), dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			addr := freeAddr(t)
			count := func(set int) (clients, entries int) {
				prefix := fmt.Sprintf("62%02d%%", set)
				store.QueryRow(context.Background(), `SELECT COUNT(*) FROM clients WHERE phone_national LIKE ?`, prefix).Scan(&clients)
				store.QueryRow(context.Background(), `SELECT COUNT(*) FROM waitlist_entries w JOIN clients c ON c.account_id = w.account_id AND c.id = w.client_id
					WHERE c.phone_national LIKE ? AND w.status = 'waiting' AND w.source = 'api_batch'`, prefix).Scan(&entries)
				return
			}

			acct, err := account.BySlug(context.Background(), store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			// settle waits, on PostgreSQL, until the killed server's
			// transaction is over: a COMMIT it sent just before dying still
			// completes after the process is gone. The batch holds its rows'
			// phone locks to its end, so taking one of them waits for it.
			settle := func(set int) {
				err := store.Transact(context.Background(), func(tx *db.Tx) error {
					return contact.LockKeys(context.Background(), tx, acct, contact.Keys{Nationals: []string{fmt.Sprintf("62%02d%05d", set, 0)}})
				})
				if err != nil {
					t.Fatal(err)
				}
			}

			// Calibrate: how long does a whole batch take on this machine and
			// engine? Kills then land anywhere from before the request is read
			// to after its commit.
			child := startChild(t, dsn, addr)
			start := time.Now()
			if status, _, err := post(addr, waitlistBatchPath, waitlistBatch(listID, serviceID, 99)); err != nil || status != 200 {
				t.Fatalf("calibration batch: %d %v", status, err)
			}
			span := time.Since(start) * 5 / 4
			child.Process.Signal(syscall.SIGTERM)
			child.Wait()

			committed := 0
			for trial := 0; trial < *crashTrials; trial++ {
				set := trial % 99
				body := waitlistBatch(listID, serviceID, set)
				child := startChild(t, dsn, addr)
				go post(addr, waitlistBatchPath, body)
				time.Sleep(time.Duration(rand.Int64N(int64(span) + 1)))
				child.Process.Signal(syscall.SIGKILL)
				child.Wait()
				settle(set)

				clients, entries := count(set)
				if (clients != 0 && clients != 500) || clients != entries {
					t.Fatalf("trial %d: %d clients and %d entries after the kill: a partial batch", trial, clients, entries)
				}
				wasCommitted := clients == 500

				// Re-sending converges to exactly one copy.
				child = startChild(t, dsn, addr)
				status, res, err := post(addr, waitlistBatchPath, body)
				child.Process.Signal(syscall.SIGTERM)
				child.Wait()
				if err != nil || status != 200 {
					t.Fatalf("trial %d: re-send: %d %v %v", trial, status, err, res)
				}
				if wasCommitted {
					committed++
					if summaryOf(res, "already_waiting") != 500 {
						t.Errorf("trial %d: the batch had committed but the re-send is %v", trial, res["data"].(map[string]any)["summary"])
					}
				} else if summaryOf(res, "will_create_client") != 500 {
					t.Errorf("trial %d: the batch was absent but the re-send is %v", trial, res["data"].(map[string]any)["summary"])
				}
				if clients, entries := count(set); clients != 500 || entries != 500 {
					t.Fatalf("trial %d: %d clients and %d entries after the re-send", trial, clients, entries)
				}
				// Start the next trial's set from nothing (a later trial may
				// reuse it when -crash-trials is over 99).
				store.Exec(context.Background(), `DELETE FROM waitlist_entries WHERE client_id IN (SELECT id FROM clients WHERE phone_national LIKE ?)`, fmt.Sprintf("62%02d%%", set))
				store.Exec(context.Background(), `DELETE FROM clients WHERE phone_national LIKE ?`, fmt.Sprintf("62%02d%%", set))
			}
			t.Logf("%d trials, batch ≈ %v: %d committed before the kill, %d absent", *crashTrials, span*4/5, committed, *crashTrials-committed)
		})
	}
}
