package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const (
	webNode   = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"
	offNode   = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a02"
	formNode  = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a03"
	teamNode  = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a04"
	otherNode = "9a0d7c52-5a52-4c1e-9a57-6f4a0f1f3a99"
)

func ingest(h *harness, node string, body map[string]any) response {
	return h.do("POST", leadflow+"/ingest/"+node+"/batch", acmeKey, body)
}

func rows(r ...map[string]any) []map[string]any { return r }

// rowResult returns results[i] of an ingest response.
func rowResult(res response, i int) map[string]any {
	m, _ := res.get("results", i).(map[string]any)
	return m
}

func firstError(row map[string]any) map[string]any {
	errs, _ := row["errors"].([]any)
	if len(errs) == 0 {
		return nil
	}
	return errs[0].(map[string]any)
}

func TestIngestMatchingAndPhones(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		maria := float64(h.acme().Clients["maria"])
		for _, test := range []struct {
			name      string
			row       map[string]any
			defaults  map[string]any
			status    string
			matchedBy any
			errCode   string
			errField  string
		}{
			{"E.164 with spaces", map[string]any{"phone_number": "+34 600 111 222"}, nil, "updated", "phone", "", ""},
			{"international prefix 00", map[string]any{"phone_number": "0034600111222"}, nil, "updated", "phone", "", ""},
			{"bare international digits", map[string]any{"phone_number": "34600111222"}, nil, "updated", "phone", "", ""},
			{"national with row area code", map[string]any{"phone_number": "600111222", "area_code": "34"}, nil, "updated", "phone", "", ""},
			{"national with defaults area code", map[string]any{"phone_number": "600 111 222"}, map[string]any{"area_code": "+34"}, "updated", "phone", "", ""},
			{"e-mail, case-insensitive", map[string]any{"email": "MARIA@Example.com"}, nil, "updated", "email", "", ""},
			{"client id", map[string]any{"client_id": maria}, nil, "updated", "id", "", ""},
			{"local number without country code", map[string]any{"phone_number": "600111222"}, nil, "failed", nil, "invalid_format", "phone_number"},
			{"same national digits under +33", map[string]any{"phone_number": "+33600111222"}, nil, "failed", nil, "conflict", "phone_number"},
			{"phone of one client, e-mail of another", map[string]any{"phone_number": "+34600111222", "email": "pedro@example.com"}, nil, "failed", nil, "conflict", "email"},
			{"client id with another client's e-mail", map[string]any{"client_id": maria, "email": "pedro@example.com"}, nil, "failed", nil, "conflict", "email"},
			{"unknown client id", map[string]any{"client_id": 999999}, nil, "failed", nil, "not_found", "client_id"},
			{"other account's client id", map[string]any{"client_id": float64(h.other().Clients["maria"])}, nil, "failed", nil, "not_found", "client_id"},
			{"no identity", map[string]any{"first_name": "Nobody"}, nil, "failed", nil, "required", "phone_number"},
			{"client_id as a string", map[string]any{"client_id": "7"}, nil, "failed", nil, "invalid_format", "client_id"},
			{"data not an object", map[string]any{"phone_number": "+34611000001", "data": []any{}}, nil, "failed", nil, "invalid_format", "data"},
			{"bad e-mail", map[string]any{"email": "not-an-email"}, nil, "failed", nil, "invalid_format", "email"},
			{"name too long", map[string]any{"phone_number": "+34611000002", "first_name": strings.Repeat("x", 101)}, nil, "failed", nil, "invalid_format", "first_name"},
			{"data key too long", map[string]any{"phone_number": "+34611000003", "data": map[string]any{strings.Repeat("k", 101): 1}}, nil, "failed", nil, "invalid_format", "data"},
			{"merged data of 16 KB", map[string]any{"phone_number": "+34611000004", "data": map[string]any{"blob": strings.Repeat("x", 16*1024)}}, nil, "failed", nil, "invalid_format", "data"},
			{"new client", map[string]any{"phone_number": "+34611000005", "first_name": "Nuevo"}, nil, "created", nil, "", ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				body := map[string]any{"clients": rows(test.row), "dry_run": true}
				if test.defaults != nil {
					body["defaults"] = test.defaults
				}
				res := ingest(h, webNode, body).must(t, 200)
				row := rowResult(res, 0)
				if row["status"] != test.status || row["matched_by"] != test.matchedBy {
					t.Fatalf("row = %v", row)
				}
				if test.status == "updated" && row["existing_client"].(map[string]any)["id"] != maria {
					t.Errorf("matched %v, want maria", row["existing_client"])
				}
				if test.errCode != "" {
					e := firstError(row)
					if e == nil || e["code"] != test.errCode || e["field"] != test.errField {
						t.Errorf("error = %v, want %s on %s", e, test.errCode, test.errField)
					}
					for _, k := range []string{"message", "existing_client_id", "conflicting_client_id", "duplicate_of_index"} {
						if _, ok := e[k]; !ok {
							t.Errorf("error lacks key %s: %v", k, e)
						}
					}
				}
				if p := row["pipeline"].(map[string]any); p["status"] != "not_attempted" {
					t.Errorf("dry-run pipeline = %v", p)
				}
			})
		}
		// The +33 conflict names the owner.
		res := ingest(h, webNode, map[string]any{"clients": rows(map[string]any{"phone_number": "+33600111222"}), "dry_run": true}).must(t, 200)
		if e := firstError(rowResult(res, 0)); e["conflicting_client_id"] != maria {
			t.Errorf("conflicting_client_id = %v", e["conflicting_client_id"])
		}
		if h.count("clients", "phone_national = '611000005'") != 0 {
			t.Error("dry run wrote a client")
		}
	})
}

func TestIngestDuplicatePolicyAndMerge(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		lucia := h.acme().Clients["lucia"]
		// update: non-empty fields written, phone never changes, data merged
		// key by key (null removes), tags appended, hand-added tags kept.
		res := ingest(h, webNode, map[string]any{
			"clients": rows(map[string]any{"external_id": "crm-1", "phone_number": "+34600333444", "first_name": "Lucía María", "last_name": "  ",
				"company": "Acme", "data": map[string]any{"source": nil, "score": 7}, "tags": []any{map[string]any{"name": "lead", "color": "#ff0000"}}}),
			"defaults": map[string]any{"data": map[string]any{"score": 1, "campaign": "nov"}, "tags": []any{map[string]any{"name": "import"}}},
		}).must(t, 200)
		row := rowResult(res, 0)
		if row["status"] != "updated" || row["external_id"] != "crm-1" || row["client_id"] != float64(lucia) {
			t.Fatalf("row = %v", row)
		}
		ec := row["existing_client"].(map[string]any)
		if ec["first_name"] != "Lucía" || ec["data"].(map[string]any)["source"] != "web" || len(ec["tags"].([]any)) != 1 {
			t.Errorf("existing_client is not the stored state before the merge: %v", ec)
		}
		var first, last, company, data string
		store.QueryRow(t.Context(), "SELECT first_name, last_name, company, data FROM clients WHERE id = ?", lucia).Scan(&first, &last, &company, &data)
		if first != "Lucía María" || last != "Martín" || company != "Acme" || data != `{"campaign":"nov","plan":"silver","score":7}` {
			t.Errorf("merged = %q %q %q %s", first, last, company, data)
		}
		if n := h.count("client_tags", "client_id = ?", lucia); n != 3 {
			t.Errorf("tags = %d, want hand-added + lead + import", n)
		}
		var color string
		store.QueryRow(t.Context(), "SELECT color FROM tags WHERE name = 'import' AND account_id = ?", h.ids["acme"].Account.ID).Scan(&color)
		if color != "#808080" {
			t.Errorf("default tag colour = %q", color)
		}

		// skip: untouched but placed.
		res = ingest(h, webNode, map[string]any{"on_duplicate": "skip", "clients": rows(map[string]any{"email": "pedro@example.com", "first_name": "Changed", "tags": []any{map[string]any{"name": "x"}}})}).must(t, 200)
		if row := rowResult(res, 0); row["status"] != "skipped" || row["pipeline"].(map[string]any)["status"] != "added" {
			t.Fatalf("skip row = %v", row)
		}
		if h.count("clients", "id = ? AND first_name = 'Pedro'", h.acme().Clients["pedro"]) != 1 || h.count("client_tags", "client_id = ?", h.acme().Clients["pedro"]) != 0 {
			t.Error("skip changed the client")
		}
		// fail: untouched, not placed, exists with existing_client_id.
		res = ingest(h, webNode, map[string]any{"on_duplicate": "fail", "clients": rows(map[string]any{"email": "nophone@example.com"})}).must(t, 200)
		row = rowResult(res, 0)
		e := firstError(row)
		if row["status"] != "failed" || e["code"] != "exists" || e["existing_client_id"] != float64(h.acme().Clients["nophone"]) || row["pipeline"].(map[string]any)["status"] != "not_attempted" {
			t.Fatalf("fail row = %v", row)
		}
		if h.count("cards", "client_id = ?", h.acme().Clients["nophone"]) != 0 {
			t.Error("fail placed the client")
		}
	})
}

func TestIngestBatchSemantics(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		batch := rows(
			map[string]any{"external_id": "a", "phone_number": "+34611111111", "first_name": "Ana", "email": "ana1@example.com"},
			map[string]any{"external_id": "b", "phone_number": "+34600111222"},                      // maria, already active
			map[string]any{"external_id": "c", "phone_number": "611111111", "area_code": "34"},      // duplicate of row 0
			map[string]any{"external_id": "d", "email": "pedro@example.com", "first_name": "Pedro"}, // existing, not on board
			map[string]any{"external_id": "e"}, // required
		)
		res := ingest(h, webNode, map[string]any{"clients": batch}).must(t, 200)
		want := map[string]float64{"total": 5, "created": 1, "updated": 2, "skipped": 0, "failed": 2, "pipeline_added": 2, "pipeline_already_active": 1, "pipeline_failed": 2}
		for k, v := range want {
			if res.num("summary", k) != v {
				t.Errorf("summary.%s = %v, want %v (%s)", k, res.num("summary", k), v, res.Raw)
			}
		}
		if res.get("dry_run") != false || res.str("input_node_uuid") != webNode || res.num("pipeline_id") != float64(h.acme().Pipelines["sales"]) || res.num("stage_id") != float64(h.acme().Stages["sales/new"]) {
			t.Errorf("envelope: %s", res.Raw)
		}
		if e := firstError(rowResult(res, 2)); e["code"] != "conflict" || e["duplicate_of_index"] != 0.0 {
			t.Errorf("in-batch duplicate: %v", rowResult(res, 2))
		}
		for i, id := range []string{"a", "b", "c", "d", "e"} {
			if r := rowResult(res, i); r["index"] != float64(i) || r["external_id"] != id {
				t.Errorf("results out of order: %v", r)
			}
		}
		if p := rowResult(res, 1)["pipeline"].(map[string]any); p["status"] != "already_active" || p["client_state_id"] == nil {
			t.Errorf("maria pipeline = %v", p)
		}
		created := rowResult(res, 0)["client_id"]
		var lead float64
		var source string
		store.QueryRow(t.Context(), "SELECT lead_value, entry_source FROM cards WHERE client_id = ?", created).Scan(&lead, &source)
		if lead != 150 || source != "api" {
			t.Errorf("card lead %v source %q", lead, source)
		}
		clients := h.count("clients", "")
		cards := h.count("cards", "")

		// Retries converge: created → updated, nothing duplicated.
		res = ingest(h, webNode, map[string]any{"clients": batch}).must(t, 200)
		if res.num("summary", "created") != 0 || res.num("summary", "updated") != 3 || res.num("summary", "pipeline_already_active") != 3 || res.num("summary", "pipeline_added") != 0 {
			t.Errorf("retry summary: %v", res.get("summary"))
		}
		if h.count("clients", "") != clients || h.count("cards", "") != cards {
			t.Error("retry duplicated rows")
		}

		// all_or_none with a failed row: 400, nothing written, discarded ids null.
		before := h.count("clients", "")
		res = ingest(h, webNode, map[string]any{"all_or_none": true, "clients": rows(
			map[string]any{"phone_number": "+34622000001"},
			map[string]any{"phone_number": "600"},
		)}).must(t, 400)
		if res.errorCode() != "INGEST_ROLLED_BACK" || res.num("details", "summary", "failed") != 1 || res.num("details", "summary", "created") != 1 {
			t.Fatalf("rolled back: %s", res.Raw)
		}
		first := res.get("details", "results", 0).(map[string]any)
		if v, ok := first["client_id"]; !ok || v != nil || first["pipeline"].(map[string]any)["client_state_id"] != nil || first["pipeline"].(map[string]any)["status"] != "added" {
			t.Errorf("discarded ids: %v", first)
		}
		if !strings.Contains(res.str("message"), "1") || h.count("clients", "") != before || h.count("jobs", "") != 0 {
			t.Errorf("all_or_none wrote something or message lacks the count: %s", res.str("message"))
		}
		// Without failures all_or_none writes.
		ingest(h, webNode, map[string]any{"all_or_none": true, "clients": rows(map[string]any{"phone_number": "+34622000001"})}).must(t, 200)

		// dry_run ignores all_or_none and answers 200.
		ingest(h, webNode, map[string]any{"all_or_none": true, "dry_run": true, "clients": rows(map[string]any{"phone_number": "600"})}).must(t, 200)
	})
}

func TestIngestNodesAndEnvelope(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		one := map[string]any{"clients": rows(map[string]any{"phone_number": "+34633000001"})}
		for _, test := range []struct {
			name, node string
			body       any
			status     int
			code       string
		}{
			{"unknown node", "0b7d6c52-5a52-4c1e-9a57-000000000000", one, 404, "NOT_FOUND"},
			{"form node", formNode, one, 404, "NOT_FOUND"},
			{"other account's node", otherNode, one, 404, "NOT_FOUND"},
			{"inactive node", offNode, one, 409, "INPUT_NODE_INACTIVE"},
			{"stage of another pipeline", webNode, map[string]any{"clients": one["clients"], "stage_id": h.acme().Stages["renewals/due"]}, 400, "STAGE_NOT_IN_PIPELINE"},
			{"bad defaults area code", webNode, map[string]any{"clients": one["clients"], "defaults": map[string]any{"area_code": "abc"}}, 400, "VALIDATION_ERROR"},
			{"no rows", webNode, map[string]any{"clients": []any{}}, 422, ""},
			{"501 rows", webNode, map[string]any{"clients": make([]map[string]any, 501)}, 422, ""},
			{"row not an object", webNode, map[string]any{"clients": []any{1}}, 422, ""},
			{"bad policy", webNode, map[string]any{"clients": one["clients"], "on_duplicate": "merge"}, 422, ""},
			{"malformed uuid", "not-a-uuid", one, 422, ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := h.do("POST", leadflow+"/ingest/"+test.node+"/batch", acmeKey, test.body).must(t, test.status)
				if res.errorCode() != test.code {
					t.Errorf("code = %q: %s", res.errorCode(), res.Raw)
				}
			})
		}
		// The stage override places on another stage of the same pipeline.
		res := ingest(h, webNode, map[string]any{"clients": one["clients"], "stage_id": h.acme().Stages["sales/contacted"]}).must(t, 200)
		if res.num("stage_id") != float64(h.acme().Stages["sales/contacted"]) {
			t.Errorf("override: %s", res.Raw)
		}
	})
}

func TestIngestSingle(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		path := leadflow + "/ingest/" + webNode
		// Default on_duplicate is skip: maria is placed without an update.
		res := h.do("POST", path, acmeKey, map[string]any{"phone_number": "+34600111222", "first_name": "Changed"}).must(t, 200)
		if res.str("result", "status") != "skipped" || res.str("result", "pipeline", "status") != "already_active" || res.str("input_node_uuid") != webNode {
			t.Fatalf("single: %s", res.Raw)
		}
		if h.count("clients", "first_name = 'Changed'") != 0 {
			t.Error("single ingest updated by default")
		}
		res = h.do("POST", path, acmeKey, map[string]any{"phone_number": "+34644000001", "first_name": "New", "external_id": 42}).must(t, 200)
		if res.str("result", "status") != "created" || res.num("result", "external_id") != 42 {
			t.Fatalf("single create: %s", res.Raw)
		}
		res = h.do("POST", path, acmeKey, map[string]any{"phone_number": "600"}).must(t, 400)
		if res.errorCode() != "INGEST_ROW_FAILED" || res.str("details", "result", "status") != "failed" {
			t.Fatalf("single failed: %s", res.Raw)
		}
	})
}

func TestIngestRoundRobinAndAutomations(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		var batch []map[string]any
		for i := 0; i < 9; i++ {
			batch = append(batch, map[string]any{"phone_number": fmt.Sprintf("+3465500000%d", i)})
		}
		ingest(h, teamNode, map[string]any{"clients": batch[:4]}).must(t, 200)
		ingest(h, teamNode, map[string]any{"clients": batch[4:]}).must(t, 200)
		for _, u := range []string{"ana", "luis", "eva"} {
			if n := h.count("cards", "assigned_user_id = ?", h.acme().Users[u]); n != 3 {
				t.Errorf("%s has %d cards, want 3", u, n)
			}
		}
		list := h.do("GET", fmt.Sprintf("%s/pipelines/%d/clients?stage_id=%d", leadflow, h.acme().Pipelines["sales"], h.acme().Stages["sales/contacted"]), acmeKey, nil).must(t, 200)
		if list.num("count") != 9 || len(list.list("data", 0, "assigned_users")) != 1 {
			t.Errorf("assignees not listed: %s", list.Raw)
		}
	})
}

// Two concurrent batches with overlapping phones end with no duplicate
// clients and no failed request.
func TestIngestConcurrentOverlap(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		var batch []map[string]any
		for i := 0; i < 200; i++ {
			batch = append(batch, map[string]any{"phone_number": fmt.Sprintf("+346770%05d", i)})
		}
		var wg sync.WaitGroup
		statuses := make(chan int, 4)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				node := webNode
				if g%2 == 1 {
					node = teamNode // another node: only the client lock orders them
				}
				statuses <- ingest(h, node, map[string]any{"clients": batch[g*30 : g*30+110]}).Status
			}(g)
		}
		wg.Wait()
		close(statuses)
		for s := range statuses {
			if s != 200 {
				t.Errorf("status %d", s)
			}
		}
		if n := h.count("clients", "phone_national LIKE '6770%'"); n != 200 {
			t.Errorf("clients = %d, want 200", n)
		}
	})
}

// default_lead_value is written only when the client has no lead value.
func TestIngestLeadValue(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		store.Exec(t.Context(), "UPDATE clients SET lead_value = 900 WHERE id = ?", h.acme().Clients["pedro"])
		ingest(h, webNode, map[string]any{"clients": rows(
			map[string]any{"phone_number": "+34600222333"}, // pedro, valued at 900
			map[string]any{"phone_number": "+34688000001"}, // new
		)}).must(t, 200)
		var pedro, fresh float64
		store.QueryRow(t.Context(), "SELECT k.lead_value FROM cards k WHERE k.client_id = ?", h.acme().Clients["pedro"]).Scan(&pedro)
		store.QueryRow(t.Context(), "SELECT c.lead_value FROM clients c WHERE c.phone_national = '688000001'").Scan(&fresh)
		if pedro != 900 || fresh != 150 {
			t.Errorf("lead values: pedro's card %v (want his 900), new client %v (want the node's 150)", pedro, fresh)
		}
	})
}

// E-mail is not unique: when two clients share one, an e-mail-only row
// matches the oldest of them (lowest id), whatever order the store returns.
func TestIngestSharedEmailMatchesOldest(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		pedro, lucia := h.acme().Clients["pedro"], h.acme().Clients["lucia"]
		if _, err := store.Exec(context.Background(), `UPDATE clients SET email = 'Shared@Example.com', email_norm = 'shared@example.com' WHERE id IN (?, ?)`, pedro, lucia); err != nil {
			t.Fatal(err)
		}
		res := ingest(h, webNode, map[string]any{"clients": rows(map[string]any{"email": "SHARED@example.com"}), "dry_run": true}).must(t, 200)
		row := rowResult(res, 0)
		if row["matched_by"] != "email" || row["existing_client"].(map[string]any)["id"] != float64(min(pedro, lucia)) {
			t.Errorf("row = %v, want a match on client %d", row, min(pedro, lucia))
		}
	})
}
