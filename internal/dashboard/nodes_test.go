package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Input nodes are owners' settings: staff see a board's nodes but get the
// settings' 403 on creating, retiring or reactivating one, and write
// nothing; an owner's changes are audited, naming the node; an owner of
// another account gets 404.
func TestInputNodesOwnersOnlyAndAudited(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		board := "/app/pipelines/" + itoa(a.Pipelines["sales"])
		fileNode := a.InputNodes["sales/web"]
		if fileNode == "" {
			t.Fatalf("fixture input nodes: %v", a.InputNodes)
		}
		create := url.Values{"name": {"Staff node"}, "target_stage_id": {itoa(a.Stages["sales/new"])}, "strategy": {"none"}}
		nodes := func() int {
			return h.count("input_nodes", "account_id = (SELECT id FROM accounts WHERE slug = 'acme')")
		}
		before := nodes()

		ana := h.signedIn("ana@acme.test", "ana-password")
		// An owner retires the file's node.
		ana.post(board+"/nodes/"+fileNode+"/active", url.Values{"active": {"false"}}).must(t, http.StatusSeeOther)

		sara := h.signedIn("sara@acme.test", "sara-password")
		for _, tc := range []struct {
			path string
			form url.Values
		}{
			{board + "/nodes", clone(create)},
			{board + "/nodes/" + fileNode + "/active", url.Values{"active": {"true"}}},
			{board + "/nodes/" + fileNode + "/active", url.Values{"active": {"false"}}},
		} {
			sara.post(tc.path, tc.form).must(t, http.StatusForbidden).contains(t, "owners can change its settings")
		}
		if n := nodes(); n != before {
			t.Fatalf("staff created a node: %d nodes, want %d", n, before)
		}
		if n := h.count("input_nodes", "uuid = ? AND is_active = ?", fileNode, true); n != 0 {
			t.Fatal("staff reactivated a node an owner retired")
		}

		p := sara.get(board).must(t, http.StatusOK).contains(t, fileNode, "owners can create, deactivate or activate input nodes")
		if strings.Contains(p.Body, `action="`+board+`/nodes"`) || strings.Contains(p.Body, "/active\"") {
			t.Fatal("staff see the input node forms")
		}

		// The owner's changes: created, reactivated, deactivated, each one
		// audited once; a no-op writes no entry.
		ana.get(board).must(t, http.StatusOK).contains(t, `action="`+board+`/nodes"`)
		ana.post(board+"/nodes", url.Values{"name": {"  Landing page "}, "target_stage_id": {itoa(a.Stages["sales/new"])}, "strategy": {"none"}}).must(t, http.StatusSeeOther)
		ana.post(board+"/nodes/"+fileNode+"/active", url.Values{"active": {"true"}}).must(t, http.StatusSeeOther)
		ana.post(board+"/nodes/"+fileNode+"/active", url.Values{"active": {"true"}}).must(t, http.StatusSeeOther)
		if n := nodes(); n != before+1 {
			t.Fatalf("owner: %d nodes, want %d", n, before+1)
		}
		var created string
		if err := store.QueryRow(t.Context(), `SELECT uuid FROM input_nodes WHERE name = 'Landing page'`).Scan(&created); err != nil {
			t.Fatal(err)
		}
		sales := itoa(a.Pipelines["sales"])
		for _, want := range []struct{ action, id, summary string }{
			{"deactivated", fileNode, "; pipeline " + sales},
			{"created", created, "name Landing page; pipeline " + sales},
			{"reactivated", fileNode, "; pipeline " + sales},
		} {
			if n := h.count("audit_log", "action = ? AND object_type = 'input_node' AND object_id = ? AND user_name = 'Ana Ruiz' AND summary LIKE ?",
				want.action, want.id, "%"+want.summary); n != 1 {
				t.Errorf("audit %s %s: %d entries, want 1", want.action, want.id, n)
			}
		}
		if n := h.count("audit_log", "object_type = 'input_node'"); n != 3 {
			t.Errorf("%d input node audit entries, want 3", n)
		}
		ana.get("/app/settings/audit").must(t, http.StatusOK).contains(t, "input node", "Landing page")

		// Tenancy: acme's owner cannot touch other's node.
		o := h.other()
		otherNode := o.InputNodes["sales/web"]
		otherBoard := "/app/pipelines/" + itoa(o.Pipelines["sales"])
		for _, path := range []string{otherBoard + "/nodes/" + otherNode + "/active", board + "/nodes/" + otherNode + "/active"} {
			ana.post(path, url.Values{"active": {"false"}}).must(t, http.StatusNotFound)
		}
		ana.post(otherBoard+"/nodes", clone(create)).must(t, http.StatusNotFound)
		if n := h.count("input_nodes", "uuid = ? AND is_active = ?", otherNode, true); n != 1 {
			t.Fatal("acme's owner retired other's node")
		}
		if n := h.count("audit_log", "object_type = 'input_node'"); n != 3 {
			t.Fatalf("refused changes were audited: %d entries", n)
		}
	})
}
