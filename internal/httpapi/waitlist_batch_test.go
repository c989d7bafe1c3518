package httpapi_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

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
