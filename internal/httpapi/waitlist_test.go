package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const wl = "/api/v2/public/calendar/waitlist"

func wlAdd(h *harness, key string, body map[string]any) response {
	return h.do("POST", wl+"/entries", key, body)
}

func wlBatch(h *harness, body map[string]any) response {
	return h.do("POST", wl+"/entries/batch", acmeKey, body)
}

func wlSummary(t *testing.T, h *harness, key string) response {
	t.Helper()
	return h.do("GET", wl+"/summary", key, nil).must(t, 200)
}

// list builds a JSON array of ids.
func list(ids ...int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// obj returns the object at path of a response.
func obj(t *testing.T, res response, path ...any) map[string]any {
	t.Helper()
	m, ok := res.get(path...).(map[string]any)
	if !ok {
		t.Fatalf("no object at %v in %s", path, res.Raw)
	}
	return m
}

// has422 reports whether a 422 body holds an item of type typ at loc.
func has422(res response, typ string, loc ...any) bool {
	for _, it := range res.list("detail") {
		m := it.(map[string]any)
		if m["type"] != typ {
			continue
		}
		got := m["loc"].([]any)
		if len(got) != len(loc) {
			continue
		}
		same := true
		for i := range loc {
			if fmt.Sprint(got[i]) != fmt.Sprint(loc[i]) {
				same = false
			}
		}
		if same {
			return true
		}
	}
	return false
}

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

func TestWaitlistAddAndIdempotency(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening, ortho := ids.Services["cleaning"], ids.Services["whitening"], ids.Services["ortho"]
		mainList, orthoList := ids.Waitlists["main"], ids.Waitlists["ortho"]

		// A new phone, national digits read with the account's region (ES).
		res := wlAdd(h, acmeKey, map[string]any{"phone": "612 000 001", "first_name": "Ana", "last_name": "Gil",
			"email": "ana@example.com", "service_ids": list(cleaning)}).must(t, 200)
		if res.str("status") != "success" || res.get("data", "client_created") != true || len(res.list("data", "entries")) != 1 {
			t.Fatalf("add: %s", res.Raw)
		}
		clientID := res.num("data", "client_id")
		e := obj(t, res, "data", "entries", 0)
		entryID := e["id"]
		want := map[string]any{
			"id": entryID, "waitlist_id": float64(mainList),
			"client":  map[string]any{"id": clientID, "first_name": "Ana", "last_name": "Gil", "phone": "+34612000001", "email": "ana@example.com"},
			"service": map[string]any{"id": float64(cleaning), "name": "Limpieza dental"},
			"status":  "waiting", "priority": 2.0, "source": "api", "created_at": "2026-11-23T09:00:00Z", "position": 1.0,
			"queue_attempts": 0.0, "flagged_for_review": false,
			"preferred_professional_id": nil, "preferred_professional_name": nil, "earliest_date": nil, "latest_date": nil,
			"preferred_time_windows": []any{}, "notes": "", "days_waiting": 0.0, "resolved_at": nil, "resolution_reason": nil,
			"created": true,
		}
		if !reflect.DeepEqual(e, want) {
			t.Fatalf("entry =\n%v\nwant\n%v", e, want)
		}

		// The same client and service again: the open entry is updated with
		// the preferences sent; names sent for a known phone are ignored.
		h.clock.Advance(time.Hour)
		res = wlAdd(h, acmeKey, map[string]any{"phone": "+34612000001", "first_name": "Other", "service_names": []any{"LIMPIEZA dental"},
			"priority": 1, "preferred_professional_id": ids.Professionals["ruiz"], "earliest_date": "2026-12-01", "latest_date": "2026-12-20",
			"time_preference": "morning", "notes": "Prefers mornings"}).must(t, 200)
		e = obj(t, res, "data", "entries", 0)
		if res.get("data", "client_created") != false || res.num("data", "client_id") != clientID || e["created"] != false || e["id"] != entryID {
			t.Fatalf("idempotent add: %s", res.Raw)
		}
		for k, v := range map[string]any{"priority": 1.0, "preferred_professional_id": float64(ids.Professionals["ruiz"]),
			"preferred_professional_name": "Dra. Ruiz", "earliest_date": "2026-12-01", "latest_date": "2026-12-20",
			"preferred_time_windows": []any{"morning"}, "notes": "Prefers mornings", "created_at": "2026-11-23T09:00:00Z"} {
			if !reflect.DeepEqual(e[k], v) {
				t.Errorf("after update %s = %v, want %v", k, e[k], v)
			}
		}
		if e["client"].(map[string]any)["first_name"] != "Ana" {
			t.Errorf("a known client's names must not change: %v", e["client"])
		}
		if n := h.count("waitlist_entries", ""); n != 1 {
			t.Errorf("entries = %d, want 1", n)
		}

		// Preferences not sent keep their values.
		res = wlAdd(h, acmeKey, map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "notes": "Call after 5"}).must(t, 200)
		e = obj(t, res, "data", "entries", 0)
		if e["priority"] != 1.0 || !reflect.DeepEqual(e["preferred_time_windows"], []any{"morning"}) || e["notes"] != "Call after 5" || e["created"] != false {
			t.Errorf("partial update: %v", e)
		}

		// By client_id, several services by id and by name (a service named
		// twice is added once), each routed to the active list holding it.
		pedro := ids.Clients["pedro"]
		res = wlAdd(h, acmeKey, map[string]any{"client_id": pedro, "service_ids": list(cleaning),
			"service_names": []any{"Ortodoncia", "blanqueamiento", "Limpieza dental"}, "time_preference": "any"}).must(t, 200)
		if res.num("data", "client_id") != float64(pedro) || res.get("data", "client_created") != false {
			t.Fatalf("by client_id: %s", res.Raw)
		}
		got := res.list("data", "entries")
		if len(got) != 3 {
			t.Fatalf("entries: %s", res.Raw)
		}
		for i, w := range []struct{ service, list int64 }{{cleaning, mainList}, {ortho, orthoList}, {whitening, mainList}} {
			m := got[i].(map[string]any)
			if m["service"].(map[string]any)["id"] != float64(w.service) || m["waitlist_id"] != float64(w.list) || m["created"] != true ||
				!reflect.DeepEqual(m["preferred_time_windows"], []any{}) {
				t.Errorf("entry %d = %v", i, m)
			}
		}
		if m := got[0].(map[string]any); m["position"] != 2.0 || m["client"].(map[string]any)["phone"] != "+34600222333" {
			t.Errorf("pedro's cleaning entry: %v", m)
		}

		// An explicit list.
		res = wlAdd(h, acmeKey, map[string]any{"client_id": ids.Clients["lucia"], "waitlist_id": mainList, "service_ids": list(whitening)}).must(t, 200)
		if res.num("data", "entries", 0, "waitlist_id") != float64(mainList) {
			t.Errorf("explicit list: %s", res.Raw)
		}
		// Names and e-mail sent for a known phone are ignored, even a
		// malformed e-mail.
		res = wlAdd(h, acmeKey, map[string]any{"phone": "+34600222333", "email": "not-an-email", "service_ids": list(cleaning)}).must(t, 200)
		if res.num("data", "client_id") != float64(pedro) || res.get("data", "entries", 0, "created") != false ||
			res.str("data", "entries", 0, "client", "email") != "pedro@example.com" {
			t.Errorf("known phone with a bad e-mail: %s", res.Raw)
		}
		// A contact without a phone is added by client_id.
		res = wlAdd(h, acmeKey, map[string]any{"client_id": ids.Clients["nophone"], "service_ids": list(ortho)}).must(t, 200)
		if c := obj(t, res, "data", "entries", 0, "client"); c["phone"] != nil || c["email"] != "nophone@example.com" {
			t.Errorf("phone-less client: %v", c)
		}

		// days_waiting counts whole days by the server's clock.
		h.clock.Advance(3*24*time.Hour + 2*time.Hour)
		one := h.do("GET", fmt.Sprintf("%s/entries/%v", wl, entryID), acmeKey, nil).must(t, 200)
		if one.num("data", "days_waiting") != 3 || one.get("data", "created") != nil {
			t.Errorf("get after 3 days: %s", one.Raw)
		}
	})
}

func TestWaitlistAddRefusals(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids, other := h.acme(), h.other()
		cleaning, ortho := ids.Services["cleaning"], ids.Services["ortho"]
		clientsBefore := h.count("clients", "")
		for _, test := range []struct {
			name   string
			body   any
			status int
			code   string   // error_code, for 4xx other than 422
			loc    []any    // 422 item location
			typ    string   // 422 item type
			detail []string // keys details must hold
		}{
			{"neither client_id nor phone", map[string]any{"service_ids": list(cleaning)}, 422, "", []any{"body", "phone"}, "missing", nil},
			{"blank phone", map[string]any{"phone": "  ", "service_ids": list(cleaning)}, 422, "", []any{"body", "phone"}, "missing", nil},
			{"no services", map[string]any{"phone": "+34612000001"}, 422, "", []any{"body", "service_ids"}, "missing", nil},
			{"empty services", map[string]any{"phone": "+34612000001", "service_ids": []any{}, "service_names": []any{}}, 422, "", []any{"body", "service_ids"}, "missing", nil},
			{"client_id as string", map[string]any{"client_id": "7", "service_ids": list(cleaning)}, 422, "", []any{"body", "client_id"}, "int_parsing", nil},
			{"priority 7", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "priority": 7}, 422, "", []any{"body", "priority"}, "less_than_equal", nil},
			{"bad time_preference", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "time_preference": "night"}, 422, "", []any{"body", "time_preference"}, "literal_error", nil},
			{"bad date", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "earliest_date": "2026-13-01"}, 422, "", []any{"body", "earliest_date"}, "date_from_datetime_parsing", nil},
			{"notes too long", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "notes": strings.Repeat("x", 2001)}, 422, "", []any{"body", "notes"}, "string_too_long", nil},
			{"first_name too long", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "first_name": strings.Repeat("x", 101)}, 422, "", []any{"body", "first_name"}, "string_too_long", nil},
			{"service id as string", map[string]any{"phone": "+34612000001", "service_ids": []any{"1"}}, 422, "", []any{"body", "service_ids", 0}, "int_parsing", nil},
			{"not an object", []any{1}, 422, "", []any{"body"}, "model_type", nil},
			{"invalid JSON", "{", 422, "", []any{"body"}, "json_invalid", nil},
			{"unknown client_id", map[string]any{"client_id": 999999, "service_ids": list(cleaning)}, 400, "CLIENT_NOT_FOUND", nil, "", nil},
			{"other tenant's client_id", map[string]any{"client_id": other.Clients["maria"], "service_ids": list(cleaning)}, 400, "CLIENT_NOT_FOUND", nil, "", nil},
			{"unparseable phone", map[string]any{"phone": "12", "service_ids": list(cleaning)}, 400, "INVALID_PHONE", nil, "", nil},
			{"national digits under another country code", map[string]any{"phone": "612 345 678", "service_ids": list(cleaning)}, 400, "VALIDATION_ERROR", nil, "", []string{"field", "conflicting_client_id"}},
			{"unknown service id", map[string]any{"phone": "+34612000001", "service_ids": list(999999)}, 400, "SERVICE_NOT_FOUND", nil, "", []string{"valid_service_names", "valid_service_ids"}},
			{"other tenant's service id", map[string]any{"phone": "+34612000001", "service_ids": list(other.Services["cleaning"])}, 400, "SERVICE_NOT_FOUND", nil, "", []string{"valid_service_names"}},
			{"unknown service name", map[string]any{"phone": "+34612000001", "service_names": []any{"Limpieza"}}, 400, "SERVICE_NOT_FOUND", nil, "", []string{"valid_service_names", "valid_service_ids"}},
			{"service in no list", map[string]any{"phone": "+34612000001", "service_ids": list(ids.Services["implant"])}, 400, "NO_ACTIVE_WAITLIST", nil, "", []string{"service_id"}},
			{"service only in an inactive list", map[string]any{"phone": "+34612000001", "service_ids": list(ids.Services["legacy"])}, 400, "NO_ACTIVE_WAITLIST", nil, "", []string{"service_id"}},
			{"unknown waitlist_id", map[string]any{"phone": "+34612000001", "waitlist_id": 999999, "service_ids": list(cleaning)}, 404, "NOT_FOUND", nil, "", nil},
			{"other tenant's waitlist_id", map[string]any{"phone": "+34612000001", "waitlist_id": other.Waitlists["main"], "service_ids": list(cleaning)}, 404, "NOT_FOUND", nil, "", nil},
			{"inactive waitlist_id", map[string]any{"phone": "+34612000001", "waitlist_id": ids.Waitlists["old"], "service_ids": list(ids.Services["legacy"])}, 409, "WAITLIST_INACTIVE", nil, "", nil},
			{"service not in the given list", map[string]any{"phone": "+34612000001", "waitlist_id": ids.Waitlists["main"], "service_ids": list(ortho)}, 400, "SERVICE_NOT_IN_WAITLIST", nil, "", nil},
			{"unknown professional", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "preferred_professional_id": 999999}, 400, "PROFESSIONAL_NOT_FOUND", nil, "", []string{"field"}},
			{"inactive professional", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "preferred_professional_id": ids.Professionals["retired"]}, 400, "PROFESSIONAL_NOT_FOUND", nil, "", []string{"field"}},
			{"other tenant's professional", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "preferred_professional_id": other.Professionals["jones"]}, 400, "PROFESSIONAL_NOT_FOUND", nil, "", nil},
			{"latest before earliest", map[string]any{"phone": "+34612000001", "service_ids": list(cleaning), "earliest_date": "2026-12-10", "latest_date": "2026-12-01"}, 400, "VALIDATION_ERROR", nil, "", []string{"field"}},
			{"bad e-mail for a new client", map[string]any{"phone": "+34612000001", "email": "not-an-email", "service_ids": list(cleaning)}, 400, "VALIDATION_ERROR", nil, "", []string{"field"}},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := h.do("POST", wl+"/entries", acmeKey, test.body).must(t, test.status)
				if test.status == 422 {
					if !has422(res, test.typ, test.loc...) {
						t.Errorf("want %s at %v: %s", test.typ, test.loc, res.Raw)
					}
					return
				}
				if res.errorCode() != test.code || res.str("status") != "error" {
					t.Errorf("error_code = %q, want %q: %s", res.errorCode(), test.code, res.Raw)
				}
				for _, k := range test.detail {
					if _, ok := obj(t, res, "details")[k]; !ok {
						t.Errorf("details lack %s: %s", k, res.Raw)
					}
				}
			})
		}
		// Details say what would have been accepted, and name the owner of
		// the conflicting digits.
		res := wlAdd(h, acmeKey, map[string]any{"phone": "+34612000001", "service_ids": list(999999)}).must(t, 400)
		if !reflect.DeepEqual(res.get("details", "valid_service_names"), []any{"Limpieza dental", "Blanqueamiento", "Ortodoncia"}) {
			t.Errorf("valid_service_names: %s", res.Raw)
		}
		res = wlAdd(h, acmeKey, map[string]any{"phone": "+34612000001", "waitlist_id": ids.Waitlists["main"], "service_ids": list(ortho)}).must(t, 400)
		if !reflect.DeepEqual(res.get("details", "valid_service_names"), []any{"Limpieza dental", "Blanqueamiento"}) {
			t.Errorf("valid names of the list: %s", res.Raw)
		}
		res = wlAdd(h, acmeKey, map[string]any{"phone": "612345678", "service_ids": list(cleaning)}).must(t, 400)
		if res.num("details", "conflicting_client_id") != float64(ids.Clients["fr"]) || res.str("details", "field") != "phone" {
			t.Errorf("conflict details: %s", res.Raw)
		}
		res = wlAdd(h, acmeKey, map[string]any{"phone": "+34612000001", "service_ids": list(ids.Services["implant"])}).must(t, 400)
		if res.num("details", "service_id") != float64(ids.Services["implant"]) {
			t.Errorf("NO_ACTIVE_WAITLIST details: %s", res.Raw)
		}
		// Nothing was written by any refusal.
		if n := h.count("waitlist_entries", ""); n != 0 {
			t.Errorf("entries = %d after refusals", n)
		}
		if n := h.count("clients", ""); n != clientsBefore {
			t.Errorf("clients = %d, want %d", n, clientsBefore)
		}
	})
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

func TestWaitlistRemove(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening, ortho := ids.Services["cleaning"], ids.Services["whitening"], ids.Services["ortho"]
		res := wlAdd(h, acmeKey, map[string]any{"client_id": ids.Clients["pedro"], "service_ids": list(cleaning, whitening, ortho)}).must(t, 200)
		e1, e2, e3 := res.num("data", "entries", 0, "id"), res.num("data", "entries", 1, "id"), res.num("data", "entries", 2, "id")
		e4 := wlAdd(h, acmeKey, map[string]any{"client_id": ids.Clients["lucia"], "service_ids": list(cleaning)}).must(t, 200).num("data", "entries", 0, "id")
		theirs := wlAdd(h, otherKey, map[string]any{"phone": "+447700900123", "service_ids": list(h.other().Services["cleaning"])}).must(t, 200).num("data", "entries", 0, "id")
		path := func(id float64) string { return fmt.Sprintf("%s/entries/%d", wl, int64(id)) }

		h.clock.Advance(time.Hour)
		r := h.do("DELETE", path(e1), acmeKey, map[string]any{"reason": "booked by phone"}).must(t, 200)
		if r.str("data", "status") != "removed" || r.str("data", "resolution_reason") != "booked by phone" ||
			r.str("data", "resolved_at") != "2026-11-23T10:00:00Z" || r.get("data", "position") != nil {
			t.Errorf("remove with reason: %s", r.Raw)
		}
		r = h.do("DELETE", path(e2), acmeKey, nil).must(t, 200)
		if r.str("data", "status") != "removed" || r.str("data", "resolution_reason") != "removed_via_api" {
			t.Errorf("remove without body: %s", r.Raw)
		}
		// Removing again changes nothing.
		h.clock.Advance(time.Hour)
		r = h.do("DELETE", path(e1), acmeKey, map[string]any{"reason": "again"}).must(t, 200)
		if r.str("data", "resolved_at") != "2026-11-23T10:00:00Z" || r.str("data", "resolution_reason") != "booked by phone" {
			t.Errorf("second removal changed the entry: %s", r.Raw)
		}
		if s := wlSummary(t, h, acmeKey); s.num("data", "totals", "waiting_entries") != 2 || s.num("data", "totals", "waiting_patients") != 2 {
			t.Errorf("summary after removals: %s", s.Raw)
		}

		if r := h.do("DELETE", path(999999), acmeKey, nil).must(t, 404); r.errorCode() != "NOT_FOUND" {
			t.Errorf("unknown: %s", r.Raw)
		}
		h.do("DELETE", wl+"/entries/abc", acmeKey, nil).must(t, 422)
		h.do("DELETE", path(e3), acmeKey, map[string]any{"reason": strings.Repeat("x", 256)}).must(t, 422)
		// Another tenant's entry is not found and never changed.
		h.do("DELETE", path(theirs), acmeKey, nil).must(t, 404)
		h.do("GET", path(theirs), acmeKey, nil).must(t, 404)

		// Remove many: unknown, resolved, repeated and other tenants' ids are skipped.
		r = h.do("POST", wl+"/entries/remove", acmeKey, map[string]any{"entry_ids": []any{e3, e4, e1, 999999, theirs, e3}, "reason": "cleanup"}).must(t, 200)
		if r.str("status") != "success" || r.num("success_count") != 2 || r.num("skipped_count") != 4 || r.str("message") == "" {
			t.Errorf("remove many: %s", r.Raw)
		}
		if g := h.do("GET", path(e4), acmeKey, nil).must(t, 200); g.str("data", "status") != "removed" || g.str("data", "resolution_reason") != "cleanup" {
			t.Errorf("e4 after remove many: %s", g.Raw)
		}
		if g := h.do("GET", path(theirs), otherKey, nil).must(t, 200); g.str("data", "status") != "waiting" || g.get("data", "resolved_at") != nil {
			t.Errorf("the other tenant's entry changed: %s", g.Raw)
		}
		for _, body := range []any{map[string]any{}, map[string]any{"entry_ids": []any{}}, map[string]any{"entry_ids": []any{"x"}},
			map[string]any{"entry_ids": make([]any, 501)}} {
			h.do("POST", wl+"/entries/remove", acmeKey, body).must(t, 422)
		}
		if s := wlSummary(t, h, acmeKey); s.num("data", "totals", "waiting_entries") != 0 {
			t.Errorf("summary after remove many: %s", s.Raw)
		}
		if s := wlSummary(t, h, otherKey); s.num("data", "totals", "waiting_entries") != 1 {
			t.Errorf("other tenant's summary: %s", s.Raw)
		}

		// A resolved entry does not block a new one for the same pair.
		r = wlAdd(h, acmeKey, map[string]any{"client_id": ids.Clients["pedro"], "service_ids": list(cleaning)}).must(t, 200)
		if r.get("data", "entries", 0, "created") != true || r.num("data", "entries", 0, "id") == e1 || r.num("data", "entries", 0, "position") != 1 {
			t.Errorf("re-add after removal: %s", r.Raw)
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

// batchOf builds a batch body for the main list.
func batchOf(h *harness, skipInvalid bool, rows ...map[string]any) map[string]any {
	entries := make([]any, len(rows))
	for i, r := range rows {
		entries[i] = r
	}
	return map[string]any{"waitlist_id": h.acme().Waitlists["main"], "skip_invalid": skipInvalid, "entries": entries}
}

func rowOf(res response, path ...any) func(i int) map[string]any {
	return func(i int) map[string]any {
		m, _ := res.get(append(append([]any{}, path...), i)...).(map[string]any)
		return m
	}
}

func TestWaitlistBatchRowStatuses(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening, ortho := ids.Services["cleaning"], ids.Services["whitening"], ids.Services["ortho"]
		pedro, lucia, nophone := float64(ids.Clients["pedro"]), float64(ids.Clients["lucia"]), float64(ids.Clients["nophone"])
		wlAdd(h, acmeKey, map[string]any{"client_id": lucia, "service_ids": list(cleaning)}).must(t, 200)
		clientsBefore, entriesBefore := h.count("clients", ""), h.count("waitlist_entries", "")

		rows := []map[string]any{
			/* 0 */ {"phone": "612 000 101", "first_name": "Nuevo", "last_name": "Uno", "email": " nuevo1@example.com ", "service_ids": list(cleaning),
				"priority": 1, "time_preference": "evening", "notes": "row 0", "earliest_date": "2026-12-01", "latest_date": "2026-12-31",
				"preferred_professional_id": ids.Professionals["ruiz"]},
			/* 1 */ {"phone": "+34600222333", "service_names": []any{"limpieza dental"}},
			/* 2 */ {"phone": "0034 600 222 333", "service_ids": list(cleaning), "first_name": "Dup"},
			/* 3 */ {"email": "NOPHONE@example.com", "service_ids": list(whitening)},
			/* 4 */ {"phone": "12", "service_ids": list(cleaning)},
			/* 5 */ {"phone": "612000105", "service_ids": list(999999)},
			/* 6 */ {"first_name": "Nadie", "service_ids": list(cleaning)},
			/* 7 */ {"phone": "612000107", "service_ids": list(cleaning), "priority": 7},
			/* 8 */ {"phone": "+34600333444", "service_ids": list(cleaning, cleaning)},
			/* 9 */ {"phone": "+34600333444", "service_ids": list(cleaning, whitening)},
			/* 10 */ {"phone": "612345678", "service_ids": list(cleaning)},
			/* 11 */ {"phone": "612000111", "service_ids": list(ortho)},
			/* 12 */ {"phone": "612000101", "service_ids": list(whitening)},
			/* 13 */ {"phone": "612000113", "email": "bad@", "service_ids": list(cleaning)},
			/* 14 */ {"phone": "612000114", "service_ids": []any{"5"}},
			/* 15 */ {"phone": "612000115", "service_ids": list(cleaning), "earliest_date": "2026-12-10", "latest_date": "2026-12-01"},
			/* 16 */ {"phone": "612000116", "service_ids": list(cleaning), "preferred_professional_id": ids.Professionals["retired"]},
			/* 17 */ {"phone": "612000117"},
			/* 18 */ {"phone": "612000118", "service_ids": list(cleaning), "notes": strings.Repeat("x", 2001), "first_name": strings.Repeat("y", 101)},
		}
		wantStatus := []string{"will_create_client", "ok", "skip:duplicate_in_file", "ok", "error", "error", "error", "error",
			"already_waiting", "ok", "error", "error", "ok", "error", "error", "error", "error", "error", "error"}
		wantSummary := map[string]any{"ok": 4.0, "will_create_client": 1.0, "already_waiting": 1.0, "error": 12.0, "skip:duplicate_in_file": 1.0}

		// skip_invalid false (the default): refused whole, nothing written,
		// no id of a client that was not created.
		body := batchOf(h, false, rows...)
		delete(body, "skip_invalid")
		res := wlBatch(h, body).must(t, 400)
		if res.errorCode() != "IMPORT_HAS_ERRORS" || !reflect.DeepEqual(res.get("details", "summary"), wantSummary) || len(res.list("details", "rows")) != len(rows) {
			t.Fatalf("refused batch: %s", res.Raw)
		}
		row := rowOf(res, "details", "rows")
		for i, st := range wantStatus {
			if row(i)["status"] != st || row(i)["index"] != float64(i) {
				t.Errorf("refused row %d = %v, want %s", i, row(i), st)
			}
		}
		if row(0)["client_id"] != nil || row(12)["client_id"] != nil || row(1)["client_id"] != pedro {
			t.Errorf("refused batch client ids: %v / %v / %v", row(0), row(12), row(1))
		}
		if h.count("clients", "") != clientsBefore || h.count("waitlist_entries", "") != entriesBefore {
			t.Fatalf("a refused batch wrote something")
		}

		// skip_invalid true: valid rows are written, the rest reported.
		res = wlBatch(h, batchOf(h, true, rows...)).must(t, 200)
		data := obj(t, res, "data")
		if data["waitlist_id"] != float64(ids.Waitlists["main"]) || data["clients_created"] != 1.0 || data["entries_created"] != 5.0 ||
			data["skipped"] != 14.0 || !reflect.DeepEqual(data["summary"], wantSummary) {
			t.Fatalf("batch: %s", res.Raw)
		}
		row = rowOf(res, "data", "rows")
		for i, st := range wantStatus {
			r := row(i)
			if r["status"] != st || r["index"] != float64(i) {
				t.Errorf("row %d = %v, want %s", i, r, st)
			}
			for _, k := range []string{"errors", "warnings"} {
				if _, ok := r[k].([]any); !ok {
					t.Errorf("row %d %s is not an array: %v", i, k, r)
				}
			}
			if (st == "error") != (len(r["errors"].([]any)) > 0) {
				t.Errorf("row %d errors %v with status %s", i, r["errors"], st)
			}
		}
		newID := row(0)["client_id"]
		if newID == nil || row(0)["phone"] != "+34612000101" || row(0)["email"] != "nuevo1@example.com" {
			t.Errorf("row 0: %v", row(0))
		}
		if row(12)["client_id"] != newID || row(12)["status"] != "ok" {
			t.Errorf("a later row for the same new contact uses it: %v", row(12))
		}
		if row(1)["client_id"] != pedro || row(2)["client_id"] != pedro || row(2)["phone"] != "+34600222333" {
			t.Errorf("pedro rows: %v %v", row(1), row(2))
		}
		if row(3)["client_id"] != nophone || row(3)["phone"] != nil || row(3)["email"] != "NOPHONE@example.com" {
			t.Errorf("matched by e-mail: %v", row(3))
		}
		if row(4)["phone"] != nil || row(4)["client_id"] != nil {
			t.Errorf("bad phone row: %v", row(4))
		}
		if row(8)["client_id"] != lucia || len(row(8)["warnings"].([]any)) != 1 {
			t.Errorf("already waiting, service named twice: %v", row(8))
		}
		if row(9)["client_id"] != lucia || len(row(9)["warnings"].([]any)) != 1 {
			t.Errorf("one service already open: %v", row(9))
		}
		if len(row(18)["errors"].([]any)) != 2 {
			t.Errorf("every problem of a row is reported: %v", row(18))
		}
		for i, want := range map[int]string{4: "phone", 5: "999999", 6: "phone or an email", 7: "priority", 10: "another country code",
			11: "not in waiting list", 13: "email", 14: "service_ids[0]", 15: "latest_date", 16: "preferred_professional_id", 17: "service"} {
			if errs := fmt.Sprint(row(i)["errors"]); !strings.Contains(errs, want) {
				t.Errorf("row %d errors %s should mention %q", i, errs, want)
			}
		}
		if h.count("clients", "") != clientsBefore+1 || h.count("waitlist_entries", "") != entriesBefore+5 {
			t.Errorf("written: clients %d entries %d", h.count("clients", ""), h.count("waitlist_entries", ""))
		}
		// The created entry carries the row's preferences and the batch source.
		l := h.do("GET", fmt.Sprintf("%s/entries?client_id=%v&service_id=%d", wl, newID, cleaning), acmeKey, nil).must(t, 200)
		e := obj(t, l, "data", 0)
		if e["source"] != "api_batch" || e["priority"] != 1.0 || e["notes"] != "row 0" || !reflect.DeepEqual(e["preferred_time_windows"], []any{"evening"}) ||
			e["preferred_professional_name"] != "Dra. Ruiz" || e["earliest_date"] != "2026-12-01" || e["latest_date"] != "2026-12-31" ||
			e["position"] != 1.0 || e["client"].(map[string]any)["first_name"] != "Nuevo" || e["client"].(map[string]any)["email"] != "nuevo1@example.com" {
			t.Errorf("batch entry: %v", e)
		}
		s := wlSummary(t, h, acmeKey)
		if s.num("data", "lists", 0, "counts", "waiting_entries") != 6 || s.num("data", "lists", 0, "counts", "waiting_patients") != 4 {
			t.Errorf("summary after batch: %s", s.Raw)
		}

		// Re-sending converges: nothing new, every valid row already waiting.
		res = wlBatch(h, batchOf(h, true, rows...)).must(t, 200)
		if res.num("data", "clients_created") != 0 || res.num("data", "entries_created") != 0 ||
			!reflect.DeepEqual(res.get("data", "summary"), map[string]any{"ok": 0.0, "will_create_client": 0.0, "already_waiting": 6.0, "error": 12.0, "skip:duplicate_in_file": 1.0}) {
			t.Errorf("resend: %s", res.Raw)
		}
		if rowOf(res, "data", "rows")(0)["client_id"] != newID {
			t.Errorf("resend row 0: %v", rowOf(res, "data", "rows")(0))
		}
		if h.count("clients", "") != clientsBefore+1 || h.count("waitlist_entries", "") != entriesBefore+5 {
			t.Errorf("resend wrote something")
		}

		// Rows are counted in the batch metrics.
		m := h.do("GET", "/metrics", "", nil)
		if !strings.Contains(string(m.Raw), `frontdesk_batch_rows_total{endpoint="waitlist_batch",status="already_waiting"} 8`) {
			t.Errorf("metrics lack the batch rows")
		}
	})
}

func TestWaitlistBatchEnvelope(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		row := map[string]any{"phone": "+34612000001", "service_ids": list(ids.Services["cleaning"])}
		many := make([]any, 501)
		for i := range many {
			many[i] = row
		}
		for _, test := range []struct {
			name string
			body any
			loc  []any
			typ  string
		}{
			{"missing waitlist_id", map[string]any{"entries": []any{row}}, []any{"body", "waitlist_id"}, "missing"},
			{"missing entries", map[string]any{"waitlist_id": ids.Waitlists["main"]}, []any{"body", "entries"}, "missing"},
			{"no rows", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": []any{}}, []any{"body", "entries"}, "too_short"},
			{"501 rows", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": many}, []any{"body", "entries"}, "too_long"},
			{"row not an object", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": []any{row, "x"}}, []any{"body", "entries", 1}, "model_type"},
			{"entries not a list", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": "x"}, []any{"body", "entries"}, "list_type"},
			{"waitlist_id as string", map[string]any{"waitlist_id": "1", "entries": []any{row}}, []any{"body", "waitlist_id"}, "int_parsing"},
			{"skip_invalid not a boolean", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": []any{row}, "skip_invalid": "yes"}, []any{"body", "skip_invalid"}, "bool_parsing"},
			{"default_region not a string", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": []any{row}, "default_region": 34}, []any{"body", "default_region"}, "string_type"},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := wlBatch(h, test.body.(map[string]any)).must(t, 422)
				if !has422(res, test.typ, test.loc...) {
					t.Errorf("want %s at %v: %s", test.typ, test.loc, res.Raw)
				}
			})
		}
		for _, test := range []struct {
			name   string
			body   map[string]any
			status int
			code   string
		}{
			{"unknown list", map[string]any{"waitlist_id": 999999, "entries": []any{row}}, 404, "NOT_FOUND"},
			{"other tenant's list", map[string]any{"waitlist_id": h.other().Waitlists["main"], "entries": []any{row}}, 404, "NOT_FOUND"},
			{"inactive list", map[string]any{"waitlist_id": ids.Waitlists["old"], "entries": []any{row}}, 409, "WAITLIST_INACTIVE"},
			{"unknown default_region", map[string]any{"waitlist_id": ids.Waitlists["main"], "entries": []any{row}, "default_region": "XX"}, 400, "VALIDATION_ERROR"},
		} {
			t.Run(test.name, func(t *testing.T) {
				if res := wlBatch(h, test.body).must(t, test.status); res.errorCode() != test.code {
					t.Errorf("error_code %q, want %q: %s", res.errorCode(), test.code, res.Raw)
				}
			})
		}
		if n := h.count("waitlist_entries", ""); n != 0 {
			t.Errorf("entries = %d", n)
		}
		if n := h.count("waitlist_entries", "waitlist_id = ?", h.other().Waitlists["main"]); n != 0 {
			t.Errorf("the other tenant's list changed")
		}
	})
}

func TestWaitlistBatchOptions(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids := h.acme()
		cleaning, whitening := ids.Services["cleaning"], ids.Services["whitening"]
		clients := h.count("clients", "")

		// existing_clients_only: unknown phones and e-mails are row errors.
		rows := []map[string]any{
			{"phone": "+34600222333", "service_ids": list(cleaning)},
			{"phone": "+34612000301", "first_name": "New", "service_ids": list(cleaning)},
			{"email": "nophone@example.com", "service_ids": list(cleaning)},
			{"email": "stranger@example.com", "service_ids": list(cleaning)},
		}
		body := batchOf(h, false, rows...)
		body["existing_clients_only"] = true
		res := wlBatch(h, body).must(t, 400)
		if res.errorCode() != "IMPORT_HAS_ERRORS" || h.count("waitlist_entries", "") != 0 {
			t.Fatalf("existing_clients_only refused: %s", res.Raw)
		}
		body["skip_invalid"] = true
		res = wlBatch(h, body).must(t, 200)
		row := rowOf(res, "data", "rows")
		if row(0)["status"] != "ok" || row(1)["status"] != "error" || row(2)["status"] != "ok" || row(3)["status"] != "error" ||
			res.num("data", "clients_created") != 0 || res.num("data", "entries_created") != 2 || h.count("clients", "") != clients {
			t.Errorf("existing_clients_only: %s", res.Raw)
		}

		// default_region reads national numbers: the French client's digits
		// match under FR and conflict under the account's ES.
		fr := float64(ids.Clients["fr"])
		res = wlBatch(h, batchOf(h, true, map[string]any{"phone": "612345678", "service_ids": list(cleaning)})).must(t, 200)
		if r := rowOf(res, "data", "rows")(0); r["status"] != "error" || !strings.Contains(fmt.Sprint(r["errors"]), "another country code") {
			t.Errorf("ES reading of French digits: %v", r)
		}
		for _, region := range []string{"FR", "fr"} {
			body := batchOf(h, false, map[string]any{"phone": "06 12 34 56 78", "service_ids": list(whitening)})
			body["default_region"] = region
			res = wlBatch(h, body).must(t, 200)
			if r := rowOf(res, "data", "rows")(0); r["client_id"] != fr || r["phone"] != "+33612345678" {
				t.Errorf("default_region %s: %v", region, r)
			}
		}
		body = batchOf(h, false, map[string]any{"phone": "612000302", "service_ids": list(whitening)})
		body["default_region"] = nil // null: the account's region
		if r := rowOf(wlBatch(h, body).must(t, 200), "data", "rows")(0); r["phone"] != "+34612000302" || r["status"] != "will_create_client" {
			t.Errorf("null default_region: %v", r)
		}

		// Rows that will create the same contact share it; the same national
		// digits under two country codes in one batch are refused.
		res = wlBatch(h, batchOf(h, true,
			map[string]any{"phone": "+34612000401", "email": "Shared@Example.com", "service_ids": list(cleaning)},
			map[string]any{"email": "shared@example.com", "service_ids": list(whitening)},
			map[string]any{"phone": "612000401", "service_ids": list(whitening, cleaning)},
			map[string]any{"phone": "+33612000401", "service_ids": list(cleaning)},
		)).must(t, 200)
		row = rowOf(res, "data", "rows")
		if row(0)["status"] != "will_create_client" || row(1)["status"] != "ok" || row(1)["client_id"] != row(0)["client_id"] ||
			row(2)["status"] != "already_waiting" || row(2)["client_id"] != row(0)["client_id"] || row(3)["status"] != "error" ||
			res.num("data", "clients_created") != 1 || res.num("data", "entries_created") != 2 {
			t.Errorf("shared new contact: %s", res.Raw)
		}
	})
}

func TestWaitlistBatchResend500(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		body := waitlistBatchBody(h.acme().Waitlists["main"], []int64{h.acme().Services["cleaning"], h.acme().Services["whitening"]}, 0, 500)
		clients, entries := h.count("clients", ""), h.count("waitlist_entries", "")
		res := h.do("POST", wl+"/entries/batch", acmeKey, body).must(t, 200)
		if res.num("data", "summary", "will_create_client") != 500 || res.num("data", "clients_created") != 500 ||
			res.num("data", "entries_created") != 500 || len(res.list("data", "rows")) != 500 {
			t.Fatalf("first send: %s", res.Raw[:300])
		}
		for i := 0; i < 2; i++ {
			res = h.do("POST", wl+"/entries/batch", acmeKey, body).must(t, 200)
			if res.num("data", "summary", "already_waiting") != 500 || res.num("data", "clients_created") != 0 ||
				res.num("data", "entries_created") != 0 || res.num("data", "skipped") != 500 {
				t.Fatalf("resend: %s", res.Raw[:300])
			}
		}
		if h.count("clients", "") != clients+500 || h.count("waitlist_entries", "") != entries+500 {
			t.Errorf("resends wrote something")
		}
		s := wlSummary(t, h, acmeKey)
		if s.num("data", "totals", "waiting_entries") != 500 || s.num("data", "totals", "waiting_patients") != 500 {
			t.Errorf("summary: %s", s.Raw)
		}
	})
}

func TestWaitlistConcurrentAdds(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		cleaning := h.acme().Services["cleaning"]
		var wg sync.WaitGroup
		results := make(chan response, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results <- wlAdd(h, acmeKey, map[string]any{"phone": "+34612000501", "service_ids": list(cleaning)})
			}()
		}
		wg.Wait()
		close(results)
		created, clientsCreated := 0, 0
		for r := range results {
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			if r.get("data", "entries", 0, "created") == true {
				created++
			}
			if r.get("data", "client_created") == true {
				clientsCreated++
			}
		}
		if created != 1 || clientsCreated != 1 || h.count("waitlist_entries", "") != 1 || h.count("clients", "phone_national = '612000501'") != 1 {
			t.Errorf("created %d entries, %d clients; stored %d", created, clientsCreated, h.count("waitlist_entries", ""))
		}

		// Two copies of one batch at once: one writes, the other finds
		// everything already waiting.
		body := waitlistBatchBody(h.acme().Waitlists["main"], []int64{cleaning}, 1000, 60)
		var statuses [2]map[string]any
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i], _ = h.do("POST", wl+"/entries/batch", acmeKey, body).get("data", "summary").(map[string]any)
			}()
		}
		wg.Wait()
		if h.count("waitlist_entries", "") != 61 || h.count("clients", "phone_national LIKE '61300%'") != 60 {
			t.Errorf("concurrent batches stored %d entries", h.count("waitlist_entries", ""))
		}
		if statuses[0]["already_waiting"].(float64)+statuses[1]["already_waiting"].(float64) != 60 {
			t.Errorf("concurrent batch summaries: %v", statuses)
		}
	})
}

func TestWaitlistTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/waitlist.yaml")
		ids, other := h.acme(), h.other()
		theirs := wlAdd(h, otherKey, map[string]any{"phone": "+34600111222", "service_ids": list(other.Services["cleaning"])}).must(t, 200)
		theirID := theirs.num("data", "entries", 0, "id")
		if theirs.num("data", "client_id") != float64(other.Clients["maria"]) {
			t.Fatalf("the other tenant matched someone else's client: %s", theirs.Raw)
		}
		// The same phone in acme is acme's María, never the other tenant's.
		mine := wlAdd(h, acmeKey, map[string]any{"phone": "+34600111222", "service_ids": list(ids.Services["cleaning"])}).must(t, 200)
		if mine.num("data", "client_id") != float64(ids.Clients["maria"]) || mine.get("data", "entries", 0, "created") != true {
			t.Errorf("acme add: %s", mine.Raw)
		}
		// The other tenant's batch row naming acme's service is a row error.
		res := h.do("POST", wl+"/entries/batch", otherKey, map[string]any{"waitlist_id": other.Waitlists["main"], "skip_invalid": true,
			"entries": []any{map[string]any{"phone": "+447700900123", "service_ids": list(ids.Services["cleaning"])}}}).must(t, 200)
		if rowOf(res, "data", "rows")(0)["status"] != "error" {
			t.Errorf("foreign service in a row: %s", res.Raw)
		}
		path := fmt.Sprintf("%s/entries/%d", wl, int64(theirID))
		h.do("GET", path, acmeKey, nil).must(t, 404)
		h.do("DELETE", path, acmeKey, nil).must(t, 404)
		if r := h.do("POST", wl+"/entries/remove", acmeKey, map[string]any{"entry_ids": []any{theirID}}).must(t, 200); r.num("skipped_count") != 1 {
			t.Errorf("remove many: %s", r.Raw)
		}
		if r := h.do("GET", wl+"/entries?status=all", acmeKey, nil).must(t, 200); r.num("count") != 1 {
			t.Errorf("acme sees %v entries", r.get("count"))
		}
		if g := h.do("GET", path, otherKey, nil).must(t, 200); g.str("data", "status") != "waiting" || g.num("data", "position") != 1 {
			t.Errorf("the other tenant's entry: %s", g.Raw)
		}
		if s := wlSummary(t, h, otherKey); s.num("data", "totals", "waiting_entries") != 1 || s.num("data", "totals", "lists_count") != 1 {
			t.Errorf("other summary: %s", s.Raw)
		}
	})
}

// waitlistBatchBody builds an n-row batch of distinct contacts (phones and
// e-mails from base), cycling through services.
func waitlistBatchBody(listID int64, services []int64, base, n int) map[string]any {
	rows := make([]any, n)
	for i := range rows {
		rows[i] = map[string]any{"phone": fmt.Sprintf("+34613%06d", base+i), "first_name": "Paciente", "last_name": fmt.Sprint(base + i),
			"email": fmt.Sprintf("p%d@example.com", base+i), "service_ids": list(services[i%len(services)]), "priority": i % 4,
			"time_preference": "morning", "notes": "from the old system"}
	}
	return map[string]any{"waitlist_id": listID, "entries": rows}
}

// waitlistBenchServer provisions acme and the waiting-list fixture on engine
// e, with the wall clock.
func waitlistBenchServer(b *testing.B, e db.Engine) (*db.DB, *httpapi.Server, workspace.IDs) {
	b.Helper()
	store := dbtest.Open(b, e)
	var res *workspace.Result
	for _, f := range []string{"../workspace/testdata/acme.yaml", "testdata/waitlist.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if res, err = (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
	srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.System{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return store, srv, res.IDs
}

// BenchmarkWaitlistBatch posts 500-row batches through the HTTP handler:
// every contact new; every contact existing (entries new); and a re-send
// (every row already waiting). ms/batch-median is the median batch.
func BenchmarkWaitlistBatch(b *testing.B) {
	const path = wl + "/entries/batch"
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			b.Run("all_new", func(b *testing.B) {
				_, srv, ids := waitlistBenchServer(b, e)
				services := []int64{ids.Services["cleaning"], ids.Services["whitening"]}
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					data, _ := json.Marshal(waitlistBatchBody(ids.Waitlists["main"], services, i*500, 500))
					b.StartTimer()
					start := time.Now()
					post(b, srv, path, data, 200)
					durations = append(durations, time.Since(start))
				}
				b.StopTimer()
				reportMedian(b, durations)
			})
			b.Run("all_existing", func(b *testing.B) {
				store, srv, ids := waitlistBenchServer(b, e)
				services := []int64{ids.Services["cleaning"], ids.Services["whitening"]}
				data, _ := json.Marshal(waitlistBatchBody(ids.Waitlists["main"], services, 0, 500))
				post(b, srv, path, data, 200) // the clients exist from now on
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					// Resolve the open entries so each batch writes 500 new ones
					// for 500 existing clients.
					if _, err := store.Exec(context.Background(), `UPDATE waitlist_entries SET status = 'removed' WHERE status = 'waiting'`); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					start := time.Now()
					post(b, srv, path, data, 200)
					durations = append(durations, time.Since(start))
				}
				b.StopTimer()
				reportMedian(b, durations)
			})
			b.Run("resend_already_waiting", func(b *testing.B) {
				_, srv, ids := waitlistBenchServer(b, e)
				services := []int64{ids.Services["cleaning"], ids.Services["whitening"]}
				data, _ := json.Marshal(waitlistBatchBody(ids.Waitlists["main"], services, 0, 500))
				post(b, srv, path, data, 200)
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					post(b, srv, path, data, 200)
					durations = append(durations, time.Since(start))
				}
				b.StopTimer()
				reportMedian(b, durations)
			})
		})
	}
}

func reportMedian(b *testing.B, durations []time.Duration) {
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "ms/batch-median")
}
