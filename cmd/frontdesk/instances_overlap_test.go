package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Concurrent waiting-list and ingest batches with overlapping phones, from
// several goroutines against one server and, on PostgreSQL, against two
// server processes on one database: every request succeeds (no deadlock or
// unique-key race surfaces as a 500), no client is duplicated, no row is
// lost, and the answers account for every client and entry written.
func TestConcurrentBatchesOverlappingPhones(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			servers := 1
			if e == db.Postgres {
				servers = 2
			}
			dsn := dbtest.DSN(t, e)
			ids := applyAcme(t, dsn)
			listID, serviceID := ids.Waitlists["main"], ids.Services["cleaning"]
			store, err := db.Open(context.Background(), dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			var addrs []string
			for i := 0; i < servers; i++ {
				addrs = append(addrs, freeAddr(t))
				startServe(t, dsn, addrs[i], "--worker=false")
			}
			for round := 0; round < *faultTrials; round++ {
				overlapRound(t, store, addrs, listID, serviceID, round)
			}
		})
	}
}

func overlapRound(t *testing.T, store *db.DB, addrs []string, listID, serviceID int64, round int) {
	t.Helper()
	ctx := context.Background()
	// Four goroutines, two batches each, windows of 150 phones sliding over
	// a pool of 300: every phone is sent by two to four batches, waiting-list
	// and ingest ones alike, in a random order.
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		all []*sent
	)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 2; k++ {
				from := (g*50 + k*25 + rand.IntN(10)) % 150
				s := &sent{kind: "waitlist", server: (g + k) % len(addrs), phones: phoneSet(100+round, from, from+150)}
				body, path := waitlistBody(listID, serviceID, s.phones), waitlistBatchPath
				if g%2 == 1 {
					s.kind, body, path = "ingest", ingestBody(s.phones), ingestPath
				}
				var err error
				s.start = time.Now()
				s.status, s.body, err = post(addrs[s.server], path, body)
				s.end = time.Now()
				if err != nil {
					t.Errorf("%s batch: %v", s.kind, err)
				}
				mu.Lock()
				all = append(all, s)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	prefix := setPrefix(100 + round)
	waitlistPhones, ingestPhones, everyPhone := map[string]bool{}, map[string]bool{}, map[string]bool{}
	reportedClients, reportedEntries := 0, 0
	for _, s := range all {
		if s.status != 200 {
			t.Fatalf("round %d: %s batch on server %d answered %d: %v", round, s.kind, s.server, s.status, s.body)
		}
		for _, p := range s.phones {
			everyPhone[p] = true
			if s.kind == "waitlist" {
				waitlistPhones[p] = true
			} else {
				ingestPhones[p] = true
			}
		}
		if s.kind == "waitlist" {
			data := s.body["data"].(map[string]any)
			reportedClients += int(data["clients_created"].(float64))
			reportedEntries += int(data["entries_created"].(float64))
			if n := summaryOf(s.body, "error"); n != 0 {
				t.Errorf("round %d: %d waiting-list rows failed: %v", round, n, data["summary"])
			}
		} else {
			sum := s.body["summary"].(map[string]any)
			reportedClients += int(sum["created"].(float64))
			if sum["failed"].(float64) != 0 {
				t.Errorf("round %d: ingest rows failed: %v", round, sum)
			}
		}
	}

	dups := 0
	rows, err := store.Query(ctx, `SELECT phone_national, COUNT(*) FROM clients WHERE phone_national IS NOT NULL GROUP BY phone_national HAVING COUNT(*) > 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p string
		var n int
		rows.Scan(&p, &n)
		t.Errorf("round %d: phone %s is held by %d clients", round, p, n)
		dups++
	}
	rows.Close()
	var clients, entries, cards int
	store.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE phone_national LIKE ?`, prefix).Scan(&clients)
	store.QueryRow(ctx, `SELECT COUNT(*) FROM waitlist_entries w JOIN clients c ON c.account_id = w.account_id AND c.id = w.client_id
		WHERE c.phone_national LIKE ? AND w.status = 'waiting' AND w.service_id = ?`, prefix, serviceID).Scan(&entries)
	store.QueryRow(ctx, `SELECT COUNT(*) FROM cards k JOIN clients c ON c.account_id = k.account_id AND c.id = k.client_id
		WHERE c.phone_national LIKE ? AND k.status = 'active'`, prefix).Scan(&cards)
	if clients != len(everyPhone) || entries != len(waitlistPhones) || cards != len(ingestPhones) {
		t.Errorf("round %d: %d clients for %d phones, %d entries for %d waiting-list phones, %d cards for %d ingested phones",
			round, clients, len(everyPhone), entries, len(waitlistPhones), cards, len(ingestPhones))
	}
	if reportedClients != clients || reportedEntries != entries {
		t.Errorf("round %d: the answers report %d clients and %d entries created; %d and %d are stored", round, reportedClients, reportedEntries, clients, entries)
	}
	t.Logf("round %d: %d batches on %d server(s), %d clients, %d entries, %d cards", round, len(all), len(addrs), clients, entries, cards)
}
