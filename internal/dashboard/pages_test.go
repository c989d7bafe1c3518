package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

var newKey = regexp.MustCompile(`id="new-key" readonly value="(pk_[0-9A-Za-z]+)"`)

func TestKeyCreatedThenUsedAgainstTheAPI(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		p := u.post("/app/keys", url.Values{"name": {"crm sync"}, "expires_on": {"2027-01-31"}}).must(t, http.StatusOK)
		m := newKey.FindStringSubmatch(p.Body)
		if m == nil {
			t.Fatalf("no key shown: %.2000s", p.Body)
		}
		key := m[1]
		p.contains(t, "will not be shown again", `data-copy="#new-key"`, key[:8]+"…")
		if status, body := h.api("GET", "/api/v2/public/calendar/services", key, nil); status != 200 || len(body["data"].([]any)) != 1 {
			t.Fatalf("API with the new key: %d %v", status, body)
		}
		// The list never shows it again, but shows its use.
		h.clock.Set(testNow.Add(time.Minute))
		list := u.get("/app/keys").must(t, http.StatusOK).contains(t, "crm sync", key[:8], "1 Feb 2027, 00:00")
		if regexp.MustCompile(regexp.QuoteMeta(key)).MatchString(list.Body) {
			t.Fatal("the key is shown again")
		}
		if regexp.MustCompile(regexp.QuoteMeta(key[:9])).MatchString(list.Body) {
			t.Fatal("the list shows more than 8 characters of the key")
		}
		// A live name is not reused, so revoking by name stays unambiguous.
		u.follow(u.post("/app/keys", url.Values{"name": {"crm sync"}})).contains(t, "already exists")
		// Revoked: the API refuses it (the key cache lives one second).
		u.follow(u.post("/app/keys/revoke", url.Values{"name": {"crm sync"}})).must(t, http.StatusOK).contains(t, "revoked")
		h.clock.Set(testNow.Add(2 * time.Minute))
		if status, _ := h.api("GET", "/api/v2/public/calendar/services", key, nil); status != 401 {
			t.Fatalf("revoked key: %d", status)
		}
		// Other tenants never see it.
		bob := h.signedIn("bob@other.test", "bob-password")
		p = bob.get("/app/keys").must(t, http.StatusOK)
		if regexp.MustCompile("crm sync").MatchString(p.Body) {
			t.Fatal("other account sees acme's key")
		}
		u.post("/app/keys", url.Values{"name": {"acme only"}}).must(t, http.StatusOK)
		bob.post("/app/keys/revoke", url.Values{"name": {"acme only"}}).must(t, http.StatusNotFound)
		if n := h.count("api_keys", "name = 'acme only' AND revoked_at IS NULL"); n != 1 {
			t.Fatal("bob revoked acme's key")
		}
	})
}

func TestBoardMove(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		sales, maria := h.acme().Pipelines["sales"], h.acme().Clients["maria"]
		newID, contacted := h.acme().Stages["sales/new"], h.acme().Stages["sales/contacted"]
		board := "/app/pipelines/" + itoa(sales)
		u.get(board).must(t, http.StatusOK).contains(t, "María García", "150", `name="target_stage_id"`, "Website", "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch")

		p := u.post(board+"/move", url.Values{"client_id": {itoa(maria)}, "target_stage_id": {itoa(contacted)}})
		u.follow(p).must(t, http.StatusOK).contains(t, "Client moved to stage")
		if c := h.stageCounts(sales); c[newID] != 0 || c[contacted] != 1 {
			t.Fatalf("stages after move: %v", c)
		}

		// The card's timeline shows the placement and the move.
		var cardID int64
		store.QueryRow(t.Context(), `SELECT id FROM cards WHERE client_id = ? AND pipeline_id = ?`, maria, sales).Scan(&cardID)
		u.get(board+"/cards/"+itoa(cardID)).must(t, http.StatusOK).contains(t, "moved", "from New to Contacted")

		// A move the stage rules forbid is refused with the API's reason.
		rules, pedro := h.acme().Pipelines["rules"], h.acme().Clients["pedro"]
		a, c := h.acme().Stages["rules/a"], h.acme().Stages["rules/c"]
		rboard := "/app/pipelines/" + itoa(rules)
		p = u.post(rboard+"/move", url.Values{"client_id": {itoa(pedro)}, "target_stage_id": {itoa(c)}, "back": {rboard}})
		if p.Location != rboard {
			t.Fatalf("refused move goes back to %q", p.Location)
		}
		u.follow(p).must(t, http.StatusOK).contains(t, `class="flash error"`, "Moving from stage &#34;Assessment&#34; to stage &#34;Done&#34; is not allowed")
		if cnt := h.stageCounts(rules); cnt[a] != 1 || cnt[c] != 0 {
			t.Fatalf("forbidden move changed the board: %v", cnt)
		}
	})
}

func TestInputNodes(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		sales := h.acme().Pipelines["sales"]
		board := "/app/pipelines/" + itoa(sales)
		p := u.post(board+"/nodes", url.Values{"name": {"Landing page"}, "target_stage_id": {itoa(h.acme().Stages["sales/contacted"])},
			"default_lead_value": {"75"}, "strategy": {"round_robin"}, "pool": {itoa(h.acme().Users["ana"])}})
		u.follow(p).must(t, http.StatusOK).contains(t, "Input node created", "Landing page")
		status, body := h.api("GET", "/api/v2/public/leadflow/pipelines/"+itoa(sales)+"/input-nodes", acmeKey, nil)
		if status != 200 || len(body["data"].([]any)) != 2 {
			t.Fatalf("input nodes: %d %v", status, body)
		}
		node := body["data"].([]any)[1].(map[string]any)
		if node["name"] != "Landing page" || node["default_lead_value"] != 75.0 || node["is_active"] != true {
			t.Fatalf("node = %v", node)
		}
		uuid := node["input_node_uuid"].(string)
		u.post(board+"/nodes/"+uuid+"/active", url.Values{"active": {"false"}}).must(t, http.StatusSeeOther)
		status, body = h.api("POST", "/api/v2/public/leadflow/ingest/"+uuid+"/batch", acmeKey, map[string]any{"clients": []any{map[string]any{"phone_number": "+34600999888"}}})
		if status != 409 {
			t.Fatalf("ingest through a deactivated node: %d %v", status, body)
		}
		// A pool member of another account is refused.
		u.follow(u.post(board+"/nodes", url.Values{"name": {"X"}, "target_stage_id": {itoa(h.acme().Stages["sales/new"])},
			"strategy": {"round_robin"}, "pool": {itoa(h.other().Users["bob"])}})).contains(t, "unknown team member")
	})
}

func TestOtherAccountsObjectsAreNotFound(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		o := h.other()
		var otherCard int64
		store.QueryRow(t.Context(), `SELECT id FROM cards WHERE client_id = ?`, o.Clients["maria"]).Scan(&otherCard)
		for _, path := range []string{
			"/app/pipelines/" + itoa(o.Pipelines["sales"]),
			"/app/pipelines/" + itoa(o.Pipelines["sales"]) + "/cards/" + itoa(otherCard),
			"/app/pipelines/" + itoa(h.acme().Pipelines["sales"]) + "/cards/" + itoa(otherCard),
			"/app/clients/" + itoa(o.Clients["maria"]),
			"/app/conversations/" + itoa(o.Conversations["c1"]),
			"/app/pipelines/abc",
		} {
			u.get(path).must(t, http.StatusNotFound).contains(t, "Not found")
		}
		otherStages := h.stagesOf(o.Pipelines["sales"], otherKey)
		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{"/app/pipelines/" + itoa(o.Pipelines["sales"]) + "/move", url.Values{"client_id": {itoa(o.Clients["maria"])}, "target_stage_id": {itoa(o.Stages["sales/contacted"])}}},
			{"/app/clients/" + itoa(o.Clients["maria"]), url.Values{"first_name": {"Hacked"}, "last_name": {""}, "email": {""}}},
			{"/app/clients/" + itoa(o.Clients["maria"]) + "/tags", url.Values{"name": {"hacked"}}},
			{"/app/pipelines/" + itoa(o.Pipelines["sales"]) + "/nodes/9a0d7c52-5a52-4c1e-9a57-6f4a0f1f3a99/active", url.Values{"active": {"false"}}},
			{"/app/pipelines/" + itoa(o.Pipelines["sales"]) + "/nodes", url.Values{"name": {"x"}, "target_stage_id": {itoa(o.Stages["sales/new"])}}},
			{"/app/settings/waitlists/" + itoa(o.Waitlists["main"]), url.Values{"horizon_days": {"5"}, "run_every_minutes": {"5"}, "seat_ttl_minutes": {"5"}, "max_offers": {"5"}}},
		} {
			u.post(tc.path, tc.form).must(t, http.StatusNotFound)
		}
		if got := h.stagesOf(o.Pipelines["sales"], otherKey); got[o.Stages["sales/contacted"]] != otherStages[o.Stages["sales/contacted"]] {
			t.Fatal("acme moved other's card")
		}
		if n := h.count("clients", "id = ? AND first_name = 'María' AND email IS NOT NULL", o.Clients["maria"]); n != 1 {
			t.Fatal("acme edited other's client")
		}
		if n := h.count("input_nodes", "account_id = (SELECT id FROM accounts WHERE slug = 'other') AND is_active = ?", true); n != 1 {
			t.Fatal("acme changed other's input nodes")
		}
		if n := h.count("waitlists", "id = ? AND horizon_days = 30", o.Waitlists["main"]); n != 1 {
			t.Fatal("acme changed other's waiting list")
		}
	})
}

// stagesOf is stageCounts with another key.
func (h *harness) stagesOf(pipelineID int64, key string) map[int64]int {
	h.t.Helper()
	status, body := h.api("GET", "/api/v2/public/leadflow/pipelines/"+itoa(pipelineID)+"/stages", key, nil)
	if status != 200 {
		h.t.Fatalf("stages: %d %v", status, body)
	}
	out := map[int64]int{}
	for _, s := range body["data"].([]any) {
		m := s.(map[string]any)
		out[int64(m["id"].(float64))] = int(m["client_count"].(float64))
	}
	return out
}
