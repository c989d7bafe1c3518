package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

const leadflow = "/api/v2/public/leadflow"

// boardCounts returns the pipeline's client_count and each stage's
// client_count, checking they agree with each other.
func boardCounts(t *testing.T, h *harness, pipelineID int64) (int, map[string]int) {
	t.Helper()
	list := h.do("GET", leadflow+"/pipelines", acmeKey, nil).must(t, 200)
	total := -1
	for _, p := range list.list("data") {
		m := p.(map[string]any)
		if int64(m["id"].(float64)) == pipelineID {
			total = int(m["client_count"].(float64))
		}
	}
	stages := h.do("GET", fmt.Sprintf("%s/pipelines/%d/stages", leadflow, pipelineID), acmeKey, nil).must(t, 200)
	byName := map[string]int{}
	sum := 0
	for _, s := range stages.list("data") {
		m := s.(map[string]any)
		byName[m["name"].(string)] = int(m["client_count"].(float64))
		sum += int(m["client_count"].(float64))
	}
	if sum != total {
		t.Fatalf("stage counts %v sum to %d, pipeline client_count is %d", byName, sum, total)
	}
	return total, byName
}

func TestPipelineLists(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		ids := h.acme()
		res := h.do("GET", leadflow+"/pipelines", acmeKey, nil).must(t, 200)
		if res.num("count") != 2 || res.num("limit") != 50 || res.num("offset") != 0 || len(res.list("data")) != 2 {
			t.Fatalf("pipelines: %s", res.Raw)
		}
		p := res.get("data", 0).(map[string]any)
		if p["name"] != "Sales" || p["description"] != "Inbound leads" || p["status"] != "active" || p["stage_count"] != 3.0 || p["client_count"] != 1.0 {
			t.Errorf("sales = %v", p)
		}
		if res := h.do("GET", leadflow+"/pipelines?status=archived", acmeKey, nil).must(t, 200); res.num("count") != 1 || res.str("data", 0, "name") != "Renewals" {
			t.Errorf("archived: %s", res.Raw)
		}
		if res := h.do("GET", leadflow+"/pipelines?limit=1&offset=1", acmeKey, nil).must(t, 200); res.num("count") != 2 || len(res.list("data")) != 1 || res.str("data", 0, "name") != "Renewals" {
			t.Errorf("paging: %s", res.Raw)
		}
		h.do("GET", leadflow+"/pipelines?limit=201", acmeKey, nil).must(t, 422)

		sales := ids.Pipelines["sales"]
		st := h.do("GET", fmt.Sprintf("%s/pipelines/%d/stages", leadflow, sales), acmeKey, nil).must(t, 200)
		if st.num("count") != 3 || st.str("data", 0, "name") != "New" || st.get("data", 0, "is_entry_point") != true ||
			st.num("data", 0, "position") >= st.num("data", 1, "position") || st.str("data", 2, "stage_type") != "lost" {
			t.Errorf("stages: %s", st.Raw)
		}

		nodes := h.do("GET", fmt.Sprintf("%s/pipelines/%d/input-nodes", leadflow, sales), acmeKey, nil).must(t, 200)
		if nodes.num("count") != 3 { // web, off, team — the form node is not listed
			t.Fatalf("input nodes: %s", nodes.Raw)
		}
		web := nodes.get("data", 0).(map[string]any)
		if web["input_node_uuid"] != "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01" || web["ingest_path"] != "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch" ||
			web["target_stage_name"] != "New" || web["default_lead_value"] != 150.0 || web["is_active"] != true || web["pipeline_id"] != float64(sales) {
			t.Errorf("web node = %v", web)
		}
		empty := h.do("GET", fmt.Sprintf("%s/pipelines/%d/input-nodes", leadflow, ids.Pipelines["renewals"]), acmeKey, nil).must(t, 200)
		if empty.num("count") != 0 || empty.list("data") == nil {
			t.Errorf("no nodes: %s", empty.Raw)
		}

		// Another account's pipeline is a 404, everywhere.
		foreign := h.other().Pipelines["sales"]
		for _, path := range []string{"stages", "input-nodes", "clients"} {
			res := h.do("GET", fmt.Sprintf("%s/pipelines/%d/%s", leadflow, foreign, path), acmeKey, nil).must(t, 404)
			if res.errorCode() != "NOT_FOUND" {
				t.Errorf("%s: %s", path, res.Raw)
			}
		}
		h.do("GET", leadflow+"/pipelines/abc/stages", acmeKey, nil).must(t, 422)
	})
}

// A client walks not-on-board → active → moved → removed → reactivated,
// with every count checked after each step.
func TestMembershipLifecycle(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store, "testdata/pipeline.yaml")
		ids := h.acme()
		sales := ids.Pipelines["sales"]
		pedro := ids.Clients["pedro"]
		base := fmt.Sprintf("%s/pipelines/%d/clients", leadflow, sales)

		total, stages := boardCounts(t, h, sales)
		if total != 1 || stages["New"] != 1 {
			t.Fatalf("start: %d %v", total, stages)
		}
		// Add (201): pedro is placed, maria (already active) skipped, a
		// foreign client and an unknown id skipped and listed.
		res := h.do("POST", base+"/add", acmeKey, map[string]any{"client_ids": []int64{pedro, ids.Clients["maria"], h.other().Clients["maria"], 999999}}).must(t, 201)
		if res.num("success_count") != 1 || res.num("skipped_count") != 3 || res.str("status") != "success" || len(res.list("not_found_client_ids")) != 2 {
			t.Fatalf("add: %s", res.Raw)
		}
		total, stages = boardCounts(t, h, sales)
		if total != 2 || stages["New"] != 2 {
			t.Fatalf("after add: %d %v", total, stages)
		}
		list := h.do("GET", base, acmeKey, nil).must(t, 200)
		if list.num("count") != 2 || list.str("data", 0, "entry_source") != "api" || list.num("data", 0, "client_id") != float64(pedro) ||
			list.str("data", 0, "client", "phone") != "+34600222333" || list.str("data", 0, "stage_name") != "New" {
			t.Errorf("clients list: %s", list.Raw)
		}

		// Move New → Contacted (allowed), then Contacted → Contacted (skipped).
		move := func(client, stage int64) response {
			return h.do("PATCH", fmt.Sprintf("%s/%d/move", base, client), acmeKey, map[string]any{"target_stage_id": stage})
		}
		if res := move(pedro, ids.Stages["sales/contacted"]).must(t, 200); res.num("success_count") != 1 {
			t.Fatalf("move: %s", res.Raw)
		}
		if res := move(pedro, ids.Stages["sales/contacted"]).must(t, 200); res.num("success_count") != 0 || res.num("skipped_count") != 1 {
			t.Fatalf("same-stage move: %s", res.Raw)
		}
		total, stages = boardCounts(t, h, sales)
		if total != 2 || stages["New"] != 1 || stages["Contacted"] != 1 {
			t.Fatalf("after move: %d %v", total, stages)
		}
		// Contacted → Lost is allowed (no rules); Lost forbids every move out.
		move(pedro, ids.Stages["sales/lost"]).must(t, 200)
		if res := move(pedro, ids.Stages["sales/new"]).must(t, 400); res.errorCode() != "MOVE_NOT_ALLOWED" {
			t.Fatalf("forbidden move: %s", res.Raw)
		}
		// Unknown, other-pipeline and foreign stages are NOT_FOUND.
		for _, stage := range []int64{999999, ids.Stages["renewals/due"], h.other().Stages["sales/new"]} {
			if res := move(pedro, stage).must(t, 404); res.errorCode() != "NOT_FOUND" {
				t.Errorf("stage %d: %s", stage, res.Raw)
			}
		}
		// A client not on the board, or another account's client: 404.
		move(ids.Clients["lucia"], ids.Stages["sales/contacted"]).must(t, 404)
		move(h.other().Clients["maria"], ids.Stages["sales/contacted"]).must(t, 404)

		// Remove: the card is archived, the client kept; a second remove skips.
		res = h.do("POST", base+"/remove", acmeKey, map[string]any{"client_ids": []int64{pedro, h.other().Clients["maria"]}}).must(t, 200)
		if res.num("success_count") != 1 || res.num("skipped_count") != 1 {
			t.Fatalf("remove: %s", res.Raw)
		}
		total, stages = boardCounts(t, h, sales)
		if total != 1 || stages["Lost"] != 0 || h.count("clients", "id = ?", pedro) != 1 {
			t.Fatalf("after remove: %d %v", total, stages)
		}
		if h.count("cards", "client_id = ? AND status = 'active'", h.other().Clients["maria"]) != 1 {
			t.Fatal("another account's card was touched")
		}
		// Add again: reactivated (success), on the entry point.
		res = h.do("POST", base+"/add", acmeKey, map[string]any{"client_ids": []int64{pedro}}).must(t, 201)
		if res.num("success_count") != 1 {
			t.Fatalf("reactivate: %s", res.Raw)
		}
		total, stages = boardCounts(t, h, sales)
		if total != 2 || stages["New"] != 2 {
			t.Fatalf("after reactivation: %d %v", total, stages)
		}
		// One card, its whole timeline kept.
		if n := h.count("cards", "client_id = ? AND pipeline_id = ?", pedro, sales); n != 1 {
			t.Errorf("cards for pedro = %d, want 1 (reactivated, not duplicated)", n)
		}
		var kinds string
		rows, _ := store.Query(t.Context(), `SELECT e.kind FROM card_events e JOIN cards c ON c.account_id = e.account_id AND c.id = e.card_id WHERE c.client_id = ? ORDER BY e.id`, pedro)
		for rows.Next() {
			var k string
			rows.Scan(&k)
			kinds += k + " "
		}
		rows.Close()
		if kinds != "placed moved moved removed reactivated " {
			t.Errorf("timeline = %q", kinds)
		}
		// Reactivation has the effects of a placement: maria's card, made by
		// the workspace file, removed and ingested again, is an api card.
		maria := ids.Clients["maria"]
		if source := entrySource(t, store, maria, sales); source != "workspace" {
			t.Fatalf("maria's card entry_source = %q before, want workspace", source)
		}
		h.do("POST", base+"/remove", acmeKey, map[string]any{"client_ids": []int64{maria}}).must(t, 200)
		row := rowResult(ingest(h, teamNode, map[string]any{"clients": []map[string]any{{"client_id": maria}}}).must(t, 200), 0)
		if p := row["pipeline"].(map[string]any); p["status"] != "reactivated" {
			t.Fatalf("ingest after remove: %v", row)
		}
		if source := entrySource(t, store, maria, sales); source != "api" {
			t.Errorf("reactivated card entry_source = %q, want api", source)
		}
		// add with a stage of another pipeline.
		if res := h.do("POST", base+"/add", acmeKey, map[string]any{"client_ids": []int64{ids.Clients["lucia"]}, "stage_id": ids.Stages["renewals/due"]}).must(t, 400); res.errorCode() != "STAGE_NOT_IN_PIPELINE" {
			t.Errorf("foreign stage on add: %s", res.Raw)
		}
		// Another account's pipeline: 404, nothing changed.
		h.do("POST", fmt.Sprintf("%s/pipelines/%d/clients/add", leadflow, h.other().Pipelines["sales"]), acmeKey, map[string]any{"client_ids": []int64{pedro}}).must(t, 404)
		h.do("POST", base+"/add", acmeKey, map[string]any{"client_ids": []any{}}).must(t, 422)
		h.do("PATCH", fmt.Sprintf("%s/%d/move", base, pedro), acmeKey, map[string]any{}).must(t, 422)
	})
}

func entrySource(t *testing.T, store *db.DB, clientID, pipelineID int64) string {
	t.Helper()
	var source string
	if err := store.QueryRow(t.Context(), `SELECT entry_source FROM cards WHERE client_id = ? AND pipeline_id = ?`, clientID, pipelineID).Scan(&source); err != nil {
		t.Fatal(err)
	}
	return source
}
