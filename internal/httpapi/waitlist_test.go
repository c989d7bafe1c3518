package httpapi_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
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

// obj returns the object at path of a response.
func obj(t *testing.T, res response, path ...any) map[string]any {
	t.Helper()
	m, ok := res.get(path...).(map[string]any)
	if !ok {
		t.Fatalf("no object at %v in %s", path, res.Raw)
	}
	return m
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
