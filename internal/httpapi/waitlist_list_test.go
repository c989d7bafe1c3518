package httpapi_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// entryIDs returns the ids of a list response's entries, in order.
func entryIDs(res response) []int64 {
	var out []int64
	for _, e := range res.list("data") {
		out = append(out, int64(e.(map[string]any)["id"].(float64)))
	}
	return out
}

// positions maps entry id to position (nil when resolved) for a list response.
func positions(res response) map[int64]any {
	out := map[int64]any{}
	for _, e := range res.list("data") {
		m := e.(map[string]any)
		out[int64(m["id"].(float64))] = m["position"]
	}
	return out
}

func TestWaitlistPositions(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening := ids.Services["cleaning"], ids.Services["whitening"]
		add := func(phone string, priority int, services ...int64) int64 {
			t.Helper()
			res := wlAdd(h, acmeKey, map[string]any{"phone": phone, "service_ids": list(services...), "priority": priority}).must(t, 200)
			return int64(res.num("data", "entries", 0, "id"))
		}
		a := add("+34612000001", 2, cleaning)
		h.clock.Advance(time.Minute)
		b := add("+34612000002", 2, cleaning)
		h.clock.Advance(time.Minute)
		c := add("+34612000003", 0, cleaning) // urgent: ahead of older normal entries
		h.clock.Advance(time.Minute)
		d := add("+34612000004", 3, cleaning)
		e := add("+34612000005", 2, cleaning) // same instant as d
		f := add("+34612000006", 2, cleaning) // same instant and priority as e: id breaks the tie
		w := add("+34612000001", 2, whitening)

		check := func(want ...int64) {
			t.Helper()
			res := h.do("GET", fmt.Sprintf("%s/entries?service_id=%d", wl, cleaning), acmeKey, nil).must(t, 200)
			if got := entryIDs(res); !reflect.DeepEqual(got, want) {
				t.Fatalf("order = %v, want %v", got, want)
			}
			for i, id := range want {
				if p := positions(res)[id]; p != float64(i+1) {
					t.Errorf("entry %d position = %v, want %d", id, p, i+1)
				}
			}
		}
		check(c, a, b, e, f, d)
		if p := h.do("GET", fmt.Sprintf("%s/entries/%d", wl, w), acmeKey, nil).must(t, 200).num("data", "position"); p != 1 {
			t.Errorf("whitening is its own queue: position %v", p)
		}
		// Filtering by client does not change anyone's rank.
		res := h.do("GET", fmt.Sprintf("%s/entries?client_id=%d", wl, int64(h.do("GET", fmt.Sprintf("%s/entries/%d", wl, d), acmeKey, nil).num("data", "client", "id"))), acmeKey, nil).must(t, 200)
		if res.num("count") != 1 || res.num("data", 0, "position") != 6 {
			t.Errorf("filtered by client: %s", res.Raw)
		}

		// Raising d's priority through an idempotent add moves it up; it is
		// still younger than c.
		wlAdd(h, acmeKey, map[string]any{"phone": "+34612000004", "service_ids": list(cleaning), "priority": 0}).must(t, 200)
		check(c, d, a, b, e, f)

		// Removing the head moves everyone up; the removed entry has no position.
		removed := h.do("DELETE", fmt.Sprintf("%s/entries/%d", wl, c), acmeKey, nil).must(t, 200)
		if removed.get("data", "position") != nil {
			t.Errorf("resolved entry has a position: %s", removed.Raw)
		}
		check(d, a, b, e, f)

		s := wlSummary(t, h, acmeKey)
		if s.num("data", "totals", "waiting_entries") != 6 || s.num("data", "totals", "waiting_patients") != 5 {
			t.Errorf("summary after removal: %s", s.Raw)
		}
	})
}

func TestWaitlistListFilters(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening, ortho := ids.Services["cleaning"], ids.Services["whitening"], ids.Services["ortho"]
		pedro, lucia := ids.Clients["pedro"], ids.Clients["lucia"]
		add := func(body map[string]any) []int64 {
			t.Helper()
			res := wlAdd(h, acmeKey, body).must(t, 200)
			var out []int64
			for _, e := range res.list("data", "entries") {
				out = append(out, int64(e.(map[string]any)["id"].(float64)))
			}
			return out
		}
		p := add(map[string]any{"client_id": pedro, "service_ids": list(cleaning, ortho)}) // p[0] cleaning, p[1] ortho
		h.clock.Advance(time.Minute)
		l := add(map[string]any{"client_id": lucia, "service_ids": list(cleaning, whitening), "priority": 1})
		h.clock.Advance(time.Minute)
		x := add(map[string]any{"phone": "+34612000009", "service_ids": list(whitening), "priority": 0})
		h.clock.Advance(time.Minute)
		n := add(map[string]any{"client_id": ids.Clients["nophone"], "service_ids": list(cleaning)})
		h.clock.Advance(time.Minute)
		h.do("DELETE", fmt.Sprintf("%s/entries/%d", wl, n[0]), acmeKey, nil).must(t, 200)
		h.clock.Advance(time.Minute)
		h.do("DELETE", fmt.Sprintf("%s/entries/%d", wl, p[0]), acmeKey, nil).must(t, 200)

		get := func(query string) response {
			t.Helper()
			return h.do("GET", wl+"/entries"+query, acmeKey, nil).must(t, 200)
		}
		for _, test := range []struct {
			query string
			want  []int64
		}{
			// main list: cleaning then whitening (by position), then the ortho list.
			{"", []int64{l[0], x[0], l[1], p[1]}},
			{"?status=open", []int64{l[0], x[0], l[1], p[1]}},
			// resolved entries after the open ones of their (list, service), newest first.
			{"?status=all", []int64{l[0], n[0], p[0], x[0], l[1], p[1]}},
			{"?status=resolved", []int64{n[0], p[0]}},
			{"?status=removed", []int64{n[0], p[0]}},
			{"?status=queued", nil},
			{fmt.Sprintf("?client_id=%d", lucia), []int64{l[0], l[1]}},
			{fmt.Sprintf("?client_id=%d&status=all", pedro), []int64{p[0], p[1]}},
			{fmt.Sprintf("?service_id=%d", whitening), []int64{x[0], l[1]}},
			{fmt.Sprintf("?waitlist_id=%d", ids.Waitlists["ortho"]), []int64{p[1]}},
			{"?priority=1", []int64{l[0], l[1]}},
			{fmt.Sprintf("?waitlist_id=%d", h.other().Waitlists["main"]), nil},
		} {
			res := get(test.query)
			if got := entryIDs(res); !reflect.DeepEqual(got, test.want) || res.num("count") != float64(len(test.want)) {
				t.Errorf("%s: ids %v count %v, want %v", test.query, got, res.get("count"), test.want)
			}
		}
		page := get("?status=all&limit=2&offset=1")
		if got := entryIDs(page); !reflect.DeepEqual(got, []int64{n[0], p[0]}) || page.num("count") != 6 || page.num("limit") != 2 || page.num("offset") != 1 {
			t.Errorf("page: %s", page.Raw)
		}
		if res := get(""); res.num("limit") != 50 || res.num("offset") != 0 {
			t.Errorf("defaults: %s", res.Raw)
		}
		for _, q := range []string{"?limit=0", "?limit=201", "?offset=-1", "?status=bogus", "?priority=4", "?waitlist_id=abc"} {
			h.do("GET", wl+"/entries"+q, acmeKey, nil).must(t, 422)
		}
		h.do("GET", wl+"/entries/abc", acmeKey, nil).must(t, 422)
		if res := h.do("GET", wl+"/entries/999999", acmeKey, nil).must(t, 404); res.errorCode() != "NOT_FOUND" {
			t.Errorf("unknown entry: %s", res.Raw)
		}
	})
}

func TestWaitlistSummary(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening, ortho := ids.Services["cleaning"], ids.Services["whitening"], ids.Services["ortho"]
		mainList, orthoList, oldList := ids.Waitlists["main"], ids.Waitlists["ortho"], ids.Waitlists["old"]

		// An empty account's summary lists every list with zero counts.
		s := wlSummary(t, h, acmeKey)
		if s.num("data", "totals", "lists_count") != 3 || len(s.list("data", "lists")) != 3 || len(s.list("data", "services")) != 4 {
			t.Fatalf("empty summary: %s", s.Raw)
		}

		entry := func(key string, body map[string]any) []float64 {
			t.Helper()
			var out []float64
			for _, e := range wlAdd(h, key, body).must(t, 200).list("data", "entries") {
				out = append(out, e.(map[string]any)["id"].(float64))
			}
			return out
		}
		pedro := entry(acmeKey, map[string]any{"client_id": ids.Clients["pedro"], "service_ids": list(cleaning, whitening)})
		lucia := entry(acmeKey, map[string]any{"client_id": ids.Clients["lucia"], "service_ids": list(cleaning)})
		entry(acmeKey, map[string]any{"phone": "+34612000009", "service_ids": list(ortho)})
		booked := entry(acmeKey, map[string]any{"client_id": ids.Clients["nophone"], "service_ids": list(cleaning)})
		oldBooked := entry(acmeKey, map[string]any{"client_id": ids.Clients["fr"], "service_ids": list(cleaning)})
		entry(otherKey, map[string]any{"phone": "+447700900123", "service_ids": list(h.other().Services["cleaning"])})

		s = wlSummary(t, h, acmeKey)
		if got := obj(t, s, "data", "totals"); !reflect.DeepEqual(got, map[string]any{"lists_count": 3.0, "waiting_entries": 6.0,
			"waiting_patients": 5.0, "queued_entries": 0.0, "flagged_entries": 0.0, "booked_30d": 0.0}) {
			t.Errorf("totals after adds: %v", got)
		}

		// The seat-offering run (not part of this API) queues, snoozes,
		// flags and books entries; simulate its writes.
		ctx, now := context.Background(), h.clock.Now()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := store.Exec(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec(`UPDATE waitlist_entries SET status = 'queued', queued_at = ?, seat_expires_at = ?, queue_attempts = 1 WHERE id = ?`,
			db.Micros(now), db.Micros(now.Add(2*time.Hour)), int64(lucia[0]))
		exec(`UPDATE waitlist_entries SET status = 'snoozed', snooze_until = ? WHERE id = ?`, db.Micros(now.Add(48*time.Hour)), int64(pedro[1]))
		exec(`UPDATE waitlist_entries SET flagged_for_review = ? WHERE id = ?`, true, int64(pedro[0]))
		exec(`UPDATE waitlist_entries SET status = 'booked', resolved_at = ?, resolution_reason = 'booked' WHERE id = ?`,
			db.Micros(now.Add(-10*24*time.Hour)), int64(booked[0]))
		exec(`UPDATE waitlist_entries SET status = 'booked', resolved_at = ?, resolution_reason = 'booked' WHERE id = ?`,
			db.Micros(now.Add(-40*24*time.Hour)), int64(oldBooked[0]))

		// The optional timestamps appear once set.
		q := h.do("GET", fmt.Sprintf("%s/entries/%d", wl, int64(lucia[0])), acmeKey, nil).must(t, 200)
		if q.str("data", "queued_at") != "2026-11-23T09:00:00Z" || q.str("data", "seat_expires_at") != "2026-11-23T11:00:00Z" ||
			q.num("data", "queue_attempts") != 1 || q.num("data", "position") != 2 {
			t.Errorf("queued entry: %s", q.Raw)
		}
		if _, present := obj(t, q, "data")["snooze_until"]; present {
			t.Errorf("unset snooze_until should be absent: %s", q.Raw)
		}
		if sn := h.do("GET", fmt.Sprintf("%s/entries/%d", wl, int64(pedro[1])), acmeKey, nil).must(t, 200); sn.str("data", "snooze_until") != "2026-11-25T09:00:00Z" {
			t.Errorf("snoozed entry: %s", sn.Raw)
		}
		if fl := h.do("GET", fmt.Sprintf("%s/entries/%d", wl, int64(pedro[0])), acmeKey, nil).must(t, 200); fl.get("data", "flagged_for_review") != true {
			t.Errorf("flagged entry: %s", fl.Raw)
		}

		s = wlSummary(t, h, acmeKey)
		if got := obj(t, s, "data", "totals"); !reflect.DeepEqual(got, map[string]any{"lists_count": 3.0, "waiting_entries": 2.0,
			"waiting_patients": 2.0, "queued_entries": 1.0, "flagged_entries": 1.0, "booked_30d": 1.0}) {
			t.Errorf("totals: %v", got)
		}
		wantLists := []any{
			map[string]any{"id": float64(mainList), "name": "General", "is_active": true, "status": "active", "horizon_days": 30.0,
				"counts": map[string]any{"waiting_entries": 1.0, "waiting_patients": 1.0, "queued_entries": 1.0, "queued_patients": 1.0,
					"snoozed_entries": 1.0, "flagged_entries": 1.0},
				"service_ids": []any{float64(cleaning), float64(whitening)}, "last_run_at": nil, "next_run_at": "2026-11-23T09:15:00Z"},
			map[string]any{"id": float64(orthoList), "name": "Ortodoncia", "is_active": true, "status": "active", "horizon_days": 60.0,
				"counts": map[string]any{"waiting_entries": 1.0, "waiting_patients": 1.0, "queued_entries": 0.0, "queued_patients": 0.0,
					"snoozed_entries": 0.0, "flagged_entries": 0.0},
				"service_ids": []any{float64(ortho)}, "last_run_at": nil, "next_run_at": "2026-11-23T09:15:00Z"},
			map[string]any{"id": float64(oldList), "name": "Antigua", "is_active": false, "status": "paused", "horizon_days": 30.0,
				"counts": map[string]any{"waiting_entries": 0.0, "waiting_patients": 0.0, "queued_entries": 0.0, "queued_patients": 0.0,
					"snoozed_entries": 0.0, "flagged_entries": 0.0},
				"service_ids": []any{float64(ids.Services["legacy"])}, "last_run_at": nil, "next_run_at": nil},
		}
		if got := s.list("data", "lists"); !reflect.DeepEqual(got, wantLists) {
			t.Errorf("lists =\n%v\nwant\n%v", got, wantLists)
		}
		svc := func(service, list int64, name string, waiting, patients, queued, snoozed, flagged float64) map[string]any {
			return map[string]any{"service_id": float64(service), "service_name": name, "waitlist_id": float64(list),
				"waiting_entries": waiting, "waiting_patients": patients, "queued_entries": queued, "snoozed_entries": snoozed, "flagged_entries": flagged}
		}
		wantServices := []any{
			svc(cleaning, mainList, "Limpieza dental", 1, 1, 1, 0, 1),
			svc(whitening, mainList, "Blanqueamiento", 0, 0, 0, 1, 0),
			svc(ortho, orthoList, "Ortodoncia", 1, 1, 0, 0, 0),
			svc(ids.Services["legacy"], oldList, "Revisión antigua", 0, 0, 0, 0, 0),
		}
		if got := s.list("data", "services"); !reflect.DeepEqual(got, wantServices) {
			t.Errorf("services =\n%v\nwant\n%v", got, wantServices)
		}

		// booked_30d is by the server's clock: 21 days later the first
		// booking is 31 days old.
		h.clock.Advance(21 * 24 * time.Hour)
		if s := wlSummary(t, h, acmeKey); s.num("data", "totals", "booked_30d") != 0 {
			t.Errorf("booked_30d after 21 days: %s", s.Raw)
		}
	})
}
