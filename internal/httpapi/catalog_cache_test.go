package httpapi_test

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// GET /calendar/services answers from the account's in-memory catalogue: a
// write through this process shows at once, a write it did not see (another
// instance, another process) within readcache.MaxAge, and one account's
// snapshot never answers another's.
func TestServicesCatalogue(t *testing.T) {
	const services = "/api/v2/public/calendar/services"
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		acme := h.do("GET", services, acmeKey, nil).must(t, 200).Raw
		other := h.do("GET", services, otherKey, nil).must(t, 200).Raw
		if string(acme) == string(other) || !strings.Contains(string(acme), "Dr. López") || strings.Contains(string(other), "Dr. López") {
			t.Fatalf("acme %s\nother %s", acme, other)
		}
		// Alternate the two accounts: each always gets its own bytes.
		for i := 0; i < 3; i++ {
			if got := h.do("GET", services, otherKey, nil).must(t, 200).Raw; string(got) != string(other) {
				t.Fatalf("other read %s, want %s", got, other)
			}
			if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; string(got) != string(acme) {
				t.Fatalf("acme read %s, want %s", got, acme)
			}
		}

		// Another instance renames the service: unseen here until the
		// snapshot is MaxAge old.
		if _, err := store.Exec(context.Background(), `UPDATE services SET name = 'Renamed elsewhere' WHERE id = ?`, h.acme().Services["cleaning"]); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(readcache.MaxAge - time.Millisecond)
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; string(got) != string(acme) {
			t.Errorf("within MaxAge: %s", got)
		}
		h.clock.Advance(time.Millisecond)
		renamed := h.do("GET", services, acmeKey, nil).must(t, 200).Raw
		if !strings.Contains(string(renamed), "Renamed elsewhere") {
			t.Errorf("after MaxAge: %s", renamed)
		}
		if got := h.do("GET", services, otherKey, nil).must(t, 200).Raw; string(got) != string(other) {
			t.Errorf("other after acme's change: %s", got)
		}

		// A workspace applied through this instance shows at once, through
		// the admin route as through the applier.
		h.do("PUT", "/api/v2/admin/workspaces/acme", adminKey,
			`{"account": {"slug": "acme"}, "services": [{"key": "cleaning", "name": "Limpieza (admin)"}]}`).must(t, 200)
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; !strings.Contains(string(got), `"Limpieza (admin)"`) {
			t.Errorf("after the admin apply: %s", got)
		}
		h.applyData([]byte(`{"account": {"slug": "acme"}, "services": [{"key": "cleaning", "name": "Limpieza (file)"}]}`))
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; !strings.Contains(string(got), `"Limpieza (file)"`) {
			t.Errorf("after the file apply: %s", got)
		}
		// The contract's bytes: the same as a fresh read from the database.
		h.clock.Advance(readcache.MaxAge)
		fresh := h.do("GET", services, acmeKey, nil).must(t, 200).Raw
		if got := h.do("GET", services, acmeKey, nil).must(t, 200).Raw; string(got) != string(fresh) {
			t.Errorf("kept bytes %s\nfresh bytes %s", got, fresh)
		}
	})
}

// The pipelines and stages lists answer from the catalogue too; their
// client counts follow every card written through this process at once
// (ingest, add, move, remove), and a write they did not see within
// readcache.MaxAge.
func TestPipelinesCatalogue(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		sales := h.acme().Pipelines["sales"]
		stagesPath := fmt.Sprintf("/api/v2/public/leadflow/pipelines/%d/stages", sales)
		want := func(step string, pipeline float64, byStage map[string]float64) {
			t.Helper()
			wantCounts(t, h, sales, step, pipeline, byStage)
		}
		want("start", 1, map[string]float64{"New": 1, "Contacted": 0, "Lost": 0})

		res := h.do("POST", "/api/v2/public/leadflow/ingest/"+webNode+"/batch", acmeKey, map[string]any{
			"clients": []any{map[string]any{"phone_number": "+34600999001", "first_name": "Ana"}}, "trigger_automations": false}).must(t, 200)
		want("after ingest", 2, map[string]float64{"New": 2, "Contacted": 0, "Lost": 0})
		ana := int64(res.Body["results"].([]any)[0].(map[string]any)["client_id"].(float64))

		h.do("PATCH", fmt.Sprintf("/api/v2/public/leadflow/pipelines/%d/clients/%d/move", sales, ana), acmeKey,
			map[string]any{"target_stage_id": h.acme().Stages["sales/contacted"]}).must(t, 200)
		want("after move", 2, map[string]float64{"New": 1, "Contacted": 1, "Lost": 0})

		h.do("POST", fmt.Sprintf("/api/v2/public/leadflow/pipelines/%d/clients/remove", sales), acmeKey,
			map[string]any{"client_ids": []int64{ana}}).must(t, 200)
		want("after remove", 1, map[string]float64{"New": 1, "Contacted": 0, "Lost": 0})

		h.do("POST", fmt.Sprintf("/api/v2/public/leadflow/pipelines/%d/clients/add", sales), acmeKey,
			map[string]any{"client_ids": []int64{ana}, "stage_id": h.acme().Stages["sales/lost"]}).must(t, 201)
		want("after add", 2, map[string]float64{"New": 1, "Contacted": 0, "Lost": 1})

		// Another instance moves a card: seen within MaxAge.
		if _, err := store.Exec(context.Background(), `UPDATE cards SET stage_id = ? WHERE client_id = ? AND pipeline_id = ?`,
			h.acme().Stages["sales/new"], ana, sales); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(readcache.MaxAge - time.Millisecond)
		want("within MaxAge", 2, map[string]float64{"New": 1, "Contacted": 0, "Lost": 1})
		h.clock.Advance(time.Millisecond)
		want("after MaxAge", 2, map[string]float64{"New": 2, "Contacted": 0, "Lost": 0})

		// Filters and pages are the database's.
		for _, q := range []string{"?status=active", "?status=archived", "?limit=1", "?offset=1", "?offset=5&limit=200"} {
			got := h.do("GET", "/api/v2/public/leadflow/pipelines"+q, acmeKey, nil).must(t, 200).Body
			list, count, err := pipeline.ListPipelines(context.Background(), store, accountOf(t, h, "acme"), pipelineFilter(q))
			if err != nil {
				t.Fatal(err)
			}
			if int(got["count"].(float64)) != count || len(got["data"].([]any)) != len(list) {
				t.Errorf("%s: count %v, %d items; the database has %d, %d", q, got["count"], len(got["data"].([]any)), count, len(list))
			}
		}
		// Another account never gets acme's pipeline.
		h.do("GET", stagesPath, otherKey, nil).must(t, 404)
	})
}

// wantCounts checks the client counts GET pipelines and GET stages answer
// for a pipeline: the pipeline's, and each stage's by name.
func wantCounts(t *testing.T, h *harness, pipelineID int64, step string, pipeline float64, byStage map[string]float64) {
	t.Helper()
	var p float64
	for _, item := range h.do("GET", "/api/v2/public/leadflow/pipelines", acmeKey, nil).must(t, 200).Body["data"].([]any) {
		if item := item.(map[string]any); item["id"].(float64) == float64(pipelineID) {
			p = item["client_count"].(float64)
		}
	}
	s := map[string]float64{}
	for _, item := range h.do("GET", fmt.Sprintf("/api/v2/public/leadflow/pipelines/%d/stages", pipelineID), acmeKey, nil).must(t, 200).Body["data"].([]any) {
		item := item.(map[string]any)
		s[item["name"].(string)] = item["client_count"].(float64)
	}
	if p != pipeline || !reflect.DeepEqual(s, byStage) {
		t.Errorf("%s: pipeline %v, stages %v; want %v, %v", step, p, s, pipeline, byStage)
	}
}

// An ingest batch's placements are added to the cached counts when it
// commits, instead of the counts being read again (docs/performance.md,
// "Card counts under ingest"): a change the cache was not told about (made
// by another instance) stays unseen until MaxAge, while every placement
// through this process shows at once: new cards and reactivated ones
// counted, clients already on the pipeline not.
func TestIngestAdjustsCachedCounts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		h := newHarness(t, store)
		sales := h.acme().Pipelines["sales"]
		ingest := func(phones ...string) []int64 {
			t.Helper()
			var rows []any
			for _, p := range phones {
				rows = append(rows, map[string]any{"phone_number": p, "first_name": "Cliente"})
			}
			res := h.do("POST", "/api/v2/public/leadflow/ingest/"+webNode+"/batch", acmeKey, map[string]any{"clients": rows, "trigger_automations": false}).must(t, 200)
			var ids []int64
			for _, r := range res.Body["results"].([]any) {
				ids = append(ids, int64(r.(map[string]any)["client_id"].(float64)))
			}
			return ids
		}
		ids := ingest("+34600999101", "+34600999102")
		h.do("POST", fmt.Sprintf("/api/v2/public/leadflow/pipelines/%d/clients/remove", sales), acmeKey,
			map[string]any{"client_ids": []int64{ids[0]}}).must(t, 200)
		wantCounts(t, h, sales, "after a removal", 2, map[string]float64{"New": 2, "Contacted": 0, "Lost": 0})

		// Another instance moves the second client's card: not seen yet.
		if _, err := store.Exec(ctx, `UPDATE cards SET stage_id = ? WHERE client_id = ? AND pipeline_id = ?`,
			h.acme().Stages["sales/lost"], ids[1], sales); err != nil {
			t.Fatal(err)
		}
		// One new client, the removed one (reactivated), one already there.
		ingest("+34600999103", "+34600999101", "+34600999102")
		wantCounts(t, h, sales, "after the batch", 4, map[string]float64{"New": 4, "Contacted": 0, "Lost": 0})
		// A rolled-back dry run changes nothing.
		h.do("POST", "/api/v2/public/leadflow/ingest/"+webNode+"/batch", acmeKey, map[string]any{
			"clients": []any{map[string]any{"phone_number": "+34600999104"}}, "dry_run": true}).must(t, 200)
		wantCounts(t, h, sales, "after a dry run", 4, map[string]float64{"New": 4, "Contacted": 0, "Lost": 0})

		h.clock.Advance(readcache.MaxAge)
		wantCounts(t, h, sales, "after MaxAge", 4, map[string]float64{"New": 3, "Contacted": 0, "Lost": 1})
	})
}

func pipelineFilter(q string) pipeline.Filter {
	f := pipeline.Filter{Limit: 50}
	v, _ := url.ParseQuery(strings.TrimPrefix(q, "?"))
	f.Status = v.Get("status")
	if l := v.Get("limit"); l != "" {
		f.Limit, _ = strconv.Atoi(l)
	}
	f.Offset, _ = strconv.Atoi(v.Get("offset"))
	return f
}
