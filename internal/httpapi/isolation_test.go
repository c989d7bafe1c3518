package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Tenant isolation as a property: for every public route,
// account A's key addressing account B's objects (pipeline, stage, client,
// input node, waiting list, entry, conversation, service, professional,
// event type, disposition tag) never returns, counts, matches or changes
// them. Each request that names one of B's ids is sent a second time with a
// ghost id that exists nowhere, and the two answers must be the same (status,
// error code and body, ids aside): B's object is indistinguishable from a
// missing one (docs/contract.md, Conventions). After every request, all of B's rows of
// every table are compared with a snapshot taken before the run.

const (
	isoPub       = "/api/v2/public"
	isoGhostID   = "987654321"
	isoGhostUUID = "9a0d7c52-5a52-4c1e-9a57-000000000000"
)

// isoMarkers are strings that exist only in account B's data. None may
// appear in a response to A, unless A's own request carried it.
var isoMarkers = []string{"othermark", "dr. jones", "bob smith", "bob@other.test", "other clinic", "9a0d7c52-5a52-4c1e-9a57-6f4a0f1f3a99", "europe/london"}

// isoCase is one request of A's touching B. When foreign is set, build is
// called with B's id and with a ghost id and both answers must match.
type isoCase struct {
	name    string
	route   string // the routes.go pattern this request exercises
	foreign string // B's id sent by build ("" when the request names none)
	ghost   string
	build   func(id string) (path string, body any)
	status  int
	code    string // expected error_code ("" for a success)
	check   func(t *testing.T, res response)
	noKey   bool // a public route that needs no key (no tenant data)
}

func TestTenantIsolation(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a, b := h.acme(), h.other()
		bAcct := accountOf(t, h, "other").ID

		// Give B one object of every kind, all through B's own key.
		bEntry := h.do("POST", isoPub+"/calendar/waitlist/entries", otherKey, map[string]any{"phone": "+447700900111",
			"first_name": "Otto", "last_name": "Othermark", "service_ids": []any{b.Services["cleaning"]}, "notes": "othermark notes"}).must(t, 200)
		bEntryID := int64(bEntry.num("data", "entries", 0, "id"))
		bOtto := int64(bEntry.num("data", "client_id"))
		bIngest := h.do("POST", isoPub+"/leadflow/ingest/"+b.InputNodes["sales/web"]+"/batch", otherKey, map[string]any{"clients": []any{
			map[string]any{"phone_number": "+447700900222", "first_name": "Olga", "last_name": "Othermark", "email": "olga@b-tenant.test",
				"company": "Othermark Ltd", "data": map[string]any{"secret": "othermark"}, "tags": []any{map[string]any{"name": "othermark-tag"}}},
		}}).must(t, 200)
		bOlga := int64(bIngest.num("results", 0, "client_id"))
		h.do("POST", isoPub+"/calendar/events", otherKey, map[string]any{
			"client":     map[string]any{"phone": "+447700900333", "first_name": "Oscar", "last_name": "Othermark"},
			"service_id": b.Services["cleaning"], "professional_id": b.Professionals["jones"], "event_type_id": b.EventTypes["visit"],
			"start_at": "2026-11-30T10:00:00", "end_at": "2026-11-30T10:30:00", "timezone": "Europe/London", "notes": "othermark"}).must(t, 200)
		waitKeyTouched(t, h, bAcct)

		before := snapshotAccount(t, store, bAcct)
		for _, table := range []string{"clients", "tags", "client_tags", "cards", "card_events", "waitlist_entries", "appointments", "conversations", "messages"} {
			if len(before[table]) == 0 {
				t.Fatalf("B has no %s: the property would hold vacuously", table)
			}
		}

		aPipe, aContacted := a.Pipelines["sales"], a.Stages["sales/contacted"]
		aSvc, aPro, aET, aList, aMaria := a.Services["cleaning"], a.Professionals["lopez"], a.EventTypes["visit"], a.Waitlists["main"], a.Clients["maria"]
		aNode := a.InputNodes["sales/web"]
		bPipe, bNew, bContacted, bMaria := b.Pipelines["sales"], b.Stages["sales/new"], b.Stages["sales/contacted"], b.Clients["maria"]
		bSvc, bPro, bET, bList, bConv, bTag := b.Services["cleaning"], b.Professionals["jones"], b.EventTypes["visit"], b.Waitlists["main"], b.Conversations["c1"], b.DispositionTags["won"]
		bClients := []int64{bMaria, bOtto, bOlga}
		id := func(v int64) string { return fmt.Sprint(v) }
		n := func(s string) json.Number { return json.Number(s) }
		book := func(over map[string]any) map[string]any {
			body := map[string]any{"client": map[string]any{"phone": "+34611009001", "first_name": "Ada", "last_name": "Acme"},
				"service_id": aSvc, "professional_id": aPro, "event_type_id": aET,
				"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid"}
			for k, v := range over {
				body[k] = v
			}
			return body
		}
		wlRow := func(over map[string]any) map[string]any {
			row := map[string]any{"phone": "+34611009101", "first_name": "Bea", "service_ids": []any{aSvc}}
			for k, v := range over {
				row[k] = v
			}
			return row
		}
		batch := func(rows ...any) map[string]any {
			return map[string]any{"waitlist_id": aList, "skip_invalid": true, "entries": rows}
		}
		notIn := func(t *testing.T, what string, got []any, forbidden ...int64) {
			t.Helper()
			for _, g := range got {
				f, _ := g.(float64)
				if slices.Contains(forbidden, int64(f)) {
					t.Errorf("%s lists B's id %v", what, g)
				}
			}
		}
		pluck := func(items []any, key string) []any {
			var out []any
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					out = append(out, m[key])
				}
			}
			return out
		}
		rowStatus := func(res response) string { return res.str("data", "rows", 0, "status") }
		wlPath := isoPub + "/calendar/waitlist"
		lf := isoPub + "/leadflow"
		ghost := isoGhostID

		cases := []isoCase{
			// Calendar.
			{name: "services list", route: "GET /calendar/services", build: func(string) (string, any) { return isoPub + "/calendar/services", nil },
				status: 200, check: func(t *testing.T, res response) {
					if l := res.list("data"); len(l) != len(a.Services) {
						t.Errorf("A sees %d services, has %d", len(l), len(a.Services))
					}
					notIn(t, "services", pluck(res.list("data"), "id"), bSvc)
					for _, s := range res.list("data") {
						m := s.(map[string]any)
						notIn(t, "professionals", pluck(m["professionals"].([]any), "id"), bPro)
						notIn(t, "event types", pluck(m["event_types"].([]any), "id"), bET)
					}
				}},
			{name: "availability, B's service", route: "GET /calendar/availability", foreign: id(bSvc), ghost: ghost,
				build:  func(x string) (string, any) { return isoPub + "/calendar/availability?days=7&service_id=" + x, nil },
				status: 400, code: "SERVICE_NOT_FOUND", check: func(t *testing.T, res response) {
					notIn(t, "valid_service_ids", res.list("details", "valid_service_ids"), bSvc)
				}},
			{name: "availability", route: "GET /calendar/availability", build: func(string) (string, any) { return isoPub + "/calendar/availability?days=7", nil },
				status: 200, check: func(t *testing.T, res response) {
					svcs := res.list("data", "services")
					notIn(t, "availability services", pluck(svcs, "service_id"), bSvc)
					for _, s := range svcs {
						notIn(t, "availability professionals", pluck(s.(map[string]any)["professionals"].([]any), "id"), bPro)
					}
				}},
			{name: "free slots, B's service", route: "GET /calendar/availability/slots", foreign: id(bSvc), ghost: ghost,
				build:  func(x string) (string, any) { return isoPub + "/calendar/availability/slots?service_id=" + x, nil },
				status: 400, code: "SERVICE_NOT_FOUND", check: func(t *testing.T, res response) {
					notIn(t, "valid_service_ids", res.list("details", "valid_service_ids"), bSvc)
				}},
			{name: "free slots, B's professional", route: "GET /calendar/availability/slots", foreign: id(bPro), ghost: ghost,
				build: func(x string) (string, any) {
					return isoPub + fmt.Sprintf("/calendar/availability/slots?service_id=%d&professional_id=%s", aSvc, x), nil
				},
				status: 400, code: "PROFESSIONAL_NOT_FOUND", check: func(t *testing.T, res response) {
					notIn(t, "valid_professional_ids", res.list("details", "valid_professional_ids"), bPro)
				}},
			{name: "free slots", route: "GET /calendar/availability/slots",
				build: func(string) (string, any) {
					return isoPub + fmt.Sprintf("/calendar/availability/slots?service_id=%d&days=7", aSvc), nil
				},
				status: 200, check: func(t *testing.T, res response) {
					slots := res.list("data", "slots")
					if len(slots) == 0 {
						t.Fatalf("no slots: %s", res.Raw)
					}
					var pros []any
					for _, p := range pluck(slots, "professional") {
						pros = append(pros, p.(map[string]any)["id"])
					}
					notIn(t, "slot professionals", pros, bPro)
				}},
			{name: "book, B's service", route: "POST /calendar/events", foreign: id(bSvc), ghost: ghost,
				build: func(x string) (string, any) {
					return isoPub + "/calendar/events", book(map[string]any{"service_id": n(x)})
				},
				status: 400, code: "SERVICE_NOT_FOUND"},
			{name: "book, B's professional", route: "POST /calendar/events", foreign: id(bPro), ghost: ghost,
				build: func(x string) (string, any) {
					return isoPub + "/calendar/events", book(map[string]any{"professional_id": n(x)})
				},
				status: 400, code: "PROFESSIONAL_NOT_FOUND", check: func(t *testing.T, res response) {
					notIn(t, "valid_professional_ids", res.list("details", "valid_professional_ids"), bPro)
				}},
			{name: "book, B's event type", route: "POST /calendar/events", foreign: id(bET), ghost: ghost,
				build: func(x string) (string, any) {
					return isoPub + "/calendar/events", book(map[string]any{"event_type_id": n(x)})
				},
				status: 400, code: "EVENT_TYPE_NOT_FOUND", check: func(t *testing.T, res response) {
					notIn(t, "valid_event_type_ids", res.list("details", "valid_event_type_ids"), bET)
				}},
			{name: "book, B's professional by name", route: "POST /calendar/events",
				build: func(string) (string, any) {
					return isoPub + "/calendar/events", book(map[string]any{"professional_id": nil, "professional_name": "Dr. Jones"})
				},
				status: 400, code: "PROFESSIONAL_NOT_FOUND", check: func(t *testing.T, res response) {
					if strings.Contains(strings.ToLower(fmt.Sprint(res.get("details", "valid_professional_names"))), "jones") {
						t.Errorf("valid names list B's professional: %s", res.Raw)
					}
				}},
			{name: "book, phone known only to B", route: "POST /calendar/events",
				build: func(string) (string, any) {
					return isoPub + "/calendar/events", book(map[string]any{"client": map[string]any{"phone": "+447700900222", "first_name": "Ada"}})
				},
				status: 200, check: func(t *testing.T, res response) {
					notIn(t, "client_id", []any{res.get("client_id")}, bClients...)
					if res.get("client_created") != true {
						t.Errorf("B's client was matched: %s", res.Raw)
					}
				}},

			// Waiting lists.
			{name: "add, B's list", route: "POST /calendar/waitlist/entries", foreign: id(bList), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries", map[string]any{"phone": "+34611009201", "service_ids": []any{aSvc}, "waitlist_id": n(x)}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "add, B's service", route: "POST /calendar/waitlist/entries", foreign: id(bSvc), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries", map[string]any{"phone": "+34611009202", "service_ids": []any{n(x)}}
				},
				status: 400, code: "SERVICE_NOT_FOUND"},
			{name: "add, B's client", route: "POST /calendar/waitlist/entries", foreign: id(bOtto), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries", map[string]any{"client_id": n(x), "service_ids": []any{aSvc}}
				},
				status: 400, code: "CLIENT_NOT_FOUND"},
			{name: "add, B's professional preferred", route: "POST /calendar/waitlist/entries", foreign: id(bPro), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries", map[string]any{"phone": "+34611009203", "service_ids": []any{aSvc}, "preferred_professional_id": n(x)}
				},
				status: 400},
			{name: "add, phone known only to B", route: "POST /calendar/waitlist/entries",
				build: func(string) (string, any) {
					return wlPath + "/entries", map[string]any{"phone": "+447700900111", "service_ids": []any{aSvc}}
				},
				status: 200, check: func(t *testing.T, res response) {
					notIn(t, "client_id", []any{res.get("data", "client_id")}, bClients...)
					if res.get("data", "client_created") != true {
						t.Errorf("B's client was matched: %s", res.Raw)
					}
				}},
			{name: "batch, B's list", route: "POST /calendar/waitlist/entries/batch", foreign: id(bList), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries/batch", map[string]any{"waitlist_id": n(x), "entries": []any{wlRow(nil)}}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "batch row, B's service", route: "POST /calendar/waitlist/entries/batch", foreign: id(bSvc), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries/batch", batch(wlRow(map[string]any{"service_ids": []any{n(x)}}))
				},
				status: 200, check: func(t *testing.T, res response) {
					if rowStatus(res) != "error" {
						t.Errorf("row naming B's service: %s", res.Raw)
					}
				}},
			{name: "batch row, B's professional preferred", route: "POST /calendar/waitlist/entries/batch", foreign: id(bPro), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries/batch", batch(wlRow(map[string]any{"phone": "+34611009102", "preferred_professional_id": n(x)}))
				},
				status: 200, check: func(t *testing.T, res response) {
					if rowStatus(res) != "error" {
						t.Errorf("row naming B's professional: %s", res.Raw)
					}
				}},
			{name: "batch rows, contacts known only to B", route: "POST /calendar/waitlist/entries/batch",
				build: func(string) (string, any) {
					return wlPath + "/entries/batch", batch(wlRow(map[string]any{"phone": "+447700900333"}),
						wlRow(map[string]any{"phone": nil, "email": "olga@b-tenant.test"}))
				},
				status: 200, check: func(t *testing.T, res response) {
					for i := range 2 {
						if s := res.str("data", "rows", i, "status"); s != "will_create_client" {
							t.Errorf("row %d matched B's contact (%s): %s", i, s, res.Raw)
						}
					}
					notIn(t, "client ids", pluck(res.list("data", "rows"), "client_id"), bClients...)
				}},
			{name: "remove many, B's entry", route: "POST /calendar/waitlist/entries/remove", foreign: id(bEntryID), ghost: ghost,
				build: func(x string) (string, any) {
					return wlPath + "/entries/remove", map[string]any{"entry_ids": []any{n(x)}, "reason": "othermark"}
				},
				status: 200, check: func(t *testing.T, res response) {
					if res.num("success_count") != 0 || res.num("skipped_count") != 1 {
						t.Errorf("remove many: %s", res.Raw)
					}
				}},
			{name: "list, B's list", route: "GET /calendar/waitlist/entries", foreign: id(bList), ghost: ghost,
				build: func(x string) (string, any) { return wlPath + "/entries?status=all&waitlist_id=" + x, nil }},
			{name: "list, B's service", route: "GET /calendar/waitlist/entries", foreign: id(bSvc), ghost: ghost,
				build: func(x string) (string, any) { return wlPath + "/entries?status=all&service_id=" + x, nil }},
			{name: "list, B's client", route: "GET /calendar/waitlist/entries", foreign: id(bOtto), ghost: ghost,
				build: func(x string) (string, any) { return wlPath + "/entries?status=all&client_id=" + x, nil }},
			{name: "list", route: "GET /calendar/waitlist/entries",
				build:  func(string) (string, any) { return wlPath + "/entries?status=all&limit=200", nil },
				status: 200, check: func(t *testing.T, res response) {
					notIn(t, "entries", pluck(res.list("data"), "id"), bEntryID)
					if int(res.num("count")) != h.count("waitlist_entries", "account_id = ?", accountOf(t, h, "acme").ID) {
						t.Errorf("count %v is not A's", res.get("count"))
					}
				}},
			{name: "get, B's entry", route: "GET /calendar/waitlist/entries/{entry_id}", foreign: id(bEntryID), ghost: ghost,
				build: func(x string) (string, any) { return wlPath + "/entries/" + x, nil }, status: 404, code: "NOT_FOUND"},
			{name: "delete, B's entry", route: "DELETE /calendar/waitlist/entries/{entry_id}", foreign: id(bEntryID), ghost: ghost,
				build: func(x string) (string, any) { return wlPath + "/entries/" + x, map[string]any{"reason": "othermark"} }, status: 404, code: "NOT_FOUND"},
			{name: "summary", route: "GET /calendar/waitlist/summary",
				build:  func(string) (string, any) { return wlPath + "/summary", nil },
				status: 200, check: func(t *testing.T, res response) {
					notIn(t, "lists", pluck(res.list("data", "lists"), "id"), bList)
					notIn(t, "services", pluck(res.list("data", "services"), "service_id"), bSvc)
					if res.num("data", "totals", "lists_count") != float64(len(a.Waitlists)) {
						t.Errorf("lists_count counts B's list: %s", res.Raw)
					}
				}},

			// Pipelines.
			{name: "pipelines", route: "GET /leadflow/pipelines",
				build:  func(string) (string, any) { return lf + "/pipelines?limit=200", nil },
				status: 200, check: func(t *testing.T, res response) {
					notIn(t, "pipelines", pluck(res.list("data"), "id"), bPipe)
					if res.num("count") != float64(len(a.Pipelines)) {
						t.Errorf("count %v counts B's pipeline", res.get("count"))
					}
				}},
			{name: "stages, B's pipeline", route: "GET /leadflow/pipelines/{pipeline_id}/stages", foreign: id(bPipe), ghost: ghost,
				build: func(x string) (string, any) { return lf + "/pipelines/" + x + "/stages", nil }, status: 404, code: "NOT_FOUND"},
			{name: "input nodes, B's pipeline", route: "GET /leadflow/pipelines/{pipeline_id}/input-nodes", foreign: id(bPipe), ghost: ghost,
				build: func(x string) (string, any) { return lf + "/pipelines/" + x + "/input-nodes", nil }, status: 404, code: "NOT_FOUND"},
			{name: "clients, B's pipeline", route: "GET /leadflow/pipelines/{pipeline_id}/clients", foreign: id(bPipe), ghost: ghost,
				build: func(x string) (string, any) { return lf + "/pipelines/" + x + "/clients", nil }, status: 404, code: "NOT_FOUND"},
			{name: "clients, B's stage", route: "GET /leadflow/pipelines/{pipeline_id}/clients", foreign: id(bNew), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%d/clients?stage_id=%s", lf, aPipe, x), nil
				}},
			{name: "pipeline add, B's pipeline", route: "POST /leadflow/pipelines/{pipeline_id}/clients/add", foreign: id(bPipe), ghost: ghost,
				build: func(x string) (string, any) {
					return lf + "/pipelines/" + x + "/clients/add", map[string]any{"client_ids": []any{aMaria}}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "pipeline add, B's client", route: "POST /leadflow/pipelines/{pipeline_id}/clients/add", foreign: id(bOlga), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%d/clients/add", lf, aPipe), map[string]any{"client_ids": []any{n(x)}, "stage_id": aContacted}
				},
				status: 201, check: func(t *testing.T, res response) {
					if res.num("success_count") != 0 || res.num("skipped_count") != 1 {
						t.Errorf("add B's client: %s", res.Raw)
					}
				}},
			{name: "pipeline add, B's stage", route: "POST /leadflow/pipelines/{pipeline_id}/clients/add", foreign: id(bNew), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%d/clients/add", lf, aPipe), map[string]any{"client_ids": []any{aMaria}, "stage_id": n(x)}
				},
				status: 400, code: "STAGE_NOT_IN_PIPELINE"},
			{name: "pipeline remove, B's pipeline", route: "POST /leadflow/pipelines/{pipeline_id}/clients/remove", foreign: id(bPipe), ghost: ghost,
				build: func(x string) (string, any) {
					return lf + "/pipelines/" + x + "/clients/remove", map[string]any{"client_ids": []any{bMaria}}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "pipeline remove, B's client", route: "POST /leadflow/pipelines/{pipeline_id}/clients/remove", foreign: id(bMaria), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%d/clients/remove", lf, aPipe), map[string]any{"client_ids": []any{n(x)}}
				},
				status: 200, check: func(t *testing.T, res response) {
					if res.num("success_count") != 0 || res.num("skipped_count") != 1 {
						t.Errorf("remove B's client: %s", res.Raw)
					}
				}},
			{name: "move, B's pipeline", route: "PATCH /leadflow/pipelines/{pipeline_id}/clients/{client_id}/move", foreign: id(bPipe), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%s/clients/%d/move", lf, x, bOlga), map[string]any{"target_stage_id": bContacted}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "move, B's client", route: "PATCH /leadflow/pipelines/{pipeline_id}/clients/{client_id}/move", foreign: id(bMaria), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%d/clients/%s/move", lf, aPipe, x), map[string]any{"target_stage_id": aContacted}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "move, to B's stage", route: "PATCH /leadflow/pipelines/{pipeline_id}/clients/{client_id}/move", foreign: id(bContacted), ghost: ghost,
				build: func(x string) (string, any) {
					return fmt.Sprintf("%s/pipelines/%d/clients/%d/move", lf, aPipe, aMaria), map[string]any{"target_stage_id": n(x)}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "ingest, B's node", route: "POST /leadflow/ingest/{input_node_uuid}/batch", foreign: b.InputNodes["sales/web"], ghost: isoGhostUUID,
				build: func(x string) (string, any) {
					return lf + "/ingest/" + x + "/batch", map[string]any{"clients": []any{map[string]any{"phone_number": "+34611009301"}}}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "ingest, B's stage", route: "POST /leadflow/ingest/{input_node_uuid}/batch", foreign: id(bNew), ghost: ghost,
				build: func(x string) (string, any) {
					return lf + "/ingest/" + aNode + "/batch", map[string]any{"stage_id": n(x), "clients": []any{map[string]any{"phone_number": "+34611009302"}}}
				},
				status: 400, code: "STAGE_NOT_IN_PIPELINE"},
			{name: "ingest row, B's client", route: "POST /leadflow/ingest/{input_node_uuid}/batch", foreign: id(bOlga), ghost: ghost,
				build: func(x string) (string, any) {
					return lf + "/ingest/" + aNode + "/batch", map[string]any{"clients": []any{map[string]any{"client_id": n(x), "first_name": "Othello"}}}
				},
				status: 200, check: func(t *testing.T, res response) {
					if res.str("results", 0, "status") != "failed" || res.str("results", 0, "errors", 0, "code") != "not_found" {
						t.Errorf("row naming B's client: %s", res.Raw)
					}
				}},
			{name: "ingest dry run, contacts known only to B", route: "POST /leadflow/ingest/{input_node_uuid}/batch",
				build: func(string) (string, any) {
					return lf + "/ingest/" + aNode + "/batch", map[string]any{"dry_run": true, "clients": []any{
						map[string]any{"email": "olga@b-tenant.test"}, map[string]any{"phone_number": "+447700900111"}}}
				},
				status: 200, check: func(t *testing.T, res response) {
					// Earlier cases gave A contacts of its own with these
					// values: a match, if any, must be one of A's.
					notIn(t, "client ids", pluck(res.list("results"), "client_id"), bClients...)
					for _, r := range res.list("results") {
						if ex, ok := r.(map[string]any)["existing_client"].(map[string]any); ok {
							notIn(t, "existing_client", []any{ex["id"]}, bClients...)
						}
					}
				}},
			{name: "ingest, a phone both accounts hold", route: "POST /leadflow/ingest/{input_node_uuid}/batch",
				build: func(string) (string, any) {
					return lf + "/ingest/" + aNode + "/batch", map[string]any{"clients": []any{
						map[string]any{"phone_number": "+34600111222", "email": "maria@example.com", "first_name": "María"},
						map[string]any{"email": "olga@b-tenant.test", "first_name": "Olivia"}}}
				},
				status: 200, check: func(t *testing.T, res response) {
					if res.num("results", 0, "client_id") != float64(aMaria) || res.str("results", 0, "matched_by") != "phone" {
						t.Errorf("the shared phone matched someone else: %s", res.Raw)
					}
					notIn(t, "client ids", pluck(res.list("results"), "client_id"), bClients...)
				}},
			{name: "ingest one, B's node", route: "POST /leadflow/ingest/{input_node_uuid}", foreign: b.InputNodes["sales/web"], ghost: isoGhostUUID,
				build: func(x string) (string, any) {
					return lf + "/ingest/" + x, map[string]any{"phone_number": "+34611009303"}
				},
				status: 404, code: "NOT_FOUND"},
			{name: "ingest one, B's client", route: "POST /leadflow/ingest/{input_node_uuid}", foreign: id(bMaria), ghost: ghost,
				build: func(x string) (string, any) {
					return lf + "/ingest/" + aNode, map[string]any{"client_id": n(x), "on_duplicate": "update", "last_name": "Othello"}
				},
				status: 400, code: "INGEST_ROW_FAILED"},

			// Chat.
			{name: "conversations", route: "GET /chat/conversations",
				build:  func(string) (string, any) { return isoPub + "/chat/conversations?limit=50", nil },
				status: 200, check: func(t *testing.T, res response) {
					notIn(t, "sessions", pluck(res.list("data"), "session_id"), bConv)
					// A's María shares her phone with B's: the session's
					// client is A's.
					notIn(t, "session clients", pluck(pluck(res.list("data"), "client"), "id"), bClients...)
					if res.num("count") != float64(len(a.Conversations)) {
						t.Errorf("count %v counts B's conversations", res.get("count"))
					}
				}},
			{name: "conversations, B's client", route: "GET /chat/conversations", foreign: id(bMaria), ghost: ghost,
				build: func(x string) (string, any) { return isoPub + "/chat/conversations?client_id=" + x, nil }, status: 200},
			{name: "conversations, B's disposition", route: "GET /chat/conversations", foreign: id(bTag), ghost: ghost,
				build: func(x string) (string, any) { return isoPub + "/chat/conversations?disposition_tag_ids=" + x, nil }, status: 200},
			{name: "conversations, B's names", route: "GET /chat/conversations",
				build:  func(string) (string, any) { return isoPub + "/chat/conversations?search=Othermark", nil },
				status: 200, check: func(t *testing.T, res response) {
					if res.num("count") != 0 {
						t.Errorf("search found B's sessions: %s", res.Raw)
					}
				}},
			{name: "messages, B's conversation", route: "GET /chat/conversations/{session_id}/messages", foreign: id(bConv), ghost: ghost,
				build: func(x string) (string, any) { return isoPub + "/chat/conversations/" + x + "/messages", nil }, status: 404, code: "NOT_FOUND"},

			// Public without a key: no tenant data at all.
			{name: "openapi", route: "GET /openapi.json", noKey: true,
				build: func(string) (string, any) { return isoPub + "/openapi.json", nil }, status: 200},
		}

		served := publicRoutes(t)
		covered := map[string]bool{}
		for _, c := range cases {
			covered[c.route] = true
		}
		for _, r := range served {
			if !covered[r] {
				t.Errorf("routes.go serves %q but the isolation table has no case for it: add one", r)
			}
		}

		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if !slices.Contains(served, c.route) {
					t.Skipf("routes.go does not serve %s", c.route)
				}
				key := acmeKey
				if c.noKey {
					key = ""
				}
				arg := c.foreign
				path, body := c.build(arg)
				method, _, _ := strings.Cut(c.route, " ")
				res := h.do(method, path, key, body)
				if res.Status >= 500 {
					t.Fatalf("%s %s -> %d: %s", method, path, res.Status, res.Raw)
				}
				if c.status != 0 && res.Status != c.status {
					t.Errorf("%s %s -> %d, want %d: %s", method, path, res.Status, c.status, res.Raw)
				}
				if c.code != "" && res.errorCode() != c.code {
					t.Errorf("error_code %q, want %q: %s", res.errorCode(), c.code, res.Raw)
				}
				sent, _ := json.Marshal(body)
				request := strings.ToLower(path + string(sent))
				for _, m := range isoMarkers {
					if !strings.Contains(request, m) && strings.Contains(strings.ToLower(string(res.Raw)), m) {
						t.Errorf("the response shows B's %q: %s", m, res.Raw)
					}
				}
				if c.check != nil && !t.Failed() {
					c.check(t, res)
				}
				if c.foreign != "" {
					gpath, gbody := c.build(c.ghost)
					g := h.do(method, gpath, key, gbody)
					norm := func(r response) string {
						s := string(r.Raw)
						for _, x := range []string{c.foreign, c.ghost} {
							s = regexp.MustCompile(`\b`+regexp.QuoteMeta(x)+`\b`).ReplaceAllString(s, "<ID>")
						}
						return s
					}
					if g.Status != res.Status || g.errorCode() != res.errorCode() || norm(g) != norm(res) {
						t.Errorf("B's id answers differently from a missing one:\n B's: %d %s\n ghost: %d %s", res.Status, res.Raw, g.Status, g.Raw)
					}
				}
				assertSameRows(t, before, snapshotAccount(t, store, bAcct))
			})
		}
	})
}

// publicRoutes parses routes.go for the public routes it serves, as
// "METHOD /path" with the public prefix left out.
func publicRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\.(?:handle|Handle)\("([A-Z]+) "\s*\+\s*p\s*\+\s*"([^"]*)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		out = append(out, m[1]+" "+m[2])
	}
	if len(out) < 20 {
		t.Fatalf("found only %d public routes in routes.go: has its shape changed?", len(out))
	}
	return out
}

// waitKeyTouched waits for the key's background last_used_at write, so the
// snapshot does not race it.
func waitKeyTouched(t *testing.T, h *harness, accountID int64) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if h.count("api_keys", "account_id = ? AND last_used_at IS NOT NULL", accountID) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the key's last use was never recorded")
}

// snapshotAccount reads every row an account owns, table by table (every
// table with an account_id column, found in the catalog so new tables are
// covered, plus the account itself and its jobs' attempts), each row as one
// sorted string.
func snapshotAccount(t *testing.T, store *db.DB, accountID int64) map[string][]string {
	t.Helper()
	ctx := context.Background()
	q := `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'account_id'`
	if store.Engine() == db.SQLite {
		q = `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'account_id'`
	}
	rows, err := store.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, want := range []string{"clients", "cards", "waitlist_entries", "appointments", "conversations", "messages", "outbox", "jobs", "api_keys"} {
		if !slices.Contains(tables, want) {
			t.Fatalf("the catalog query missed table %s (found %v)", want, tables)
		}
	}
	snap := map[string][]string{}
	read := func(name, query string) {
		rows, err := store.Query(ctx, query, accountID)
		if err != nil {
			t.Fatalf("snapshot %s: %v", name, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v|", cols[i], v)
			}
			snap[name] = append(snap[name], b.String())
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(snap[name])
	}
	for _, table := range tables {
		read(table, `SELECT * FROM `+table+` WHERE account_id = ?`)
	}
	read("accounts", `SELECT * FROM accounts WHERE id = ?`)
	read("job_attempts", `SELECT * FROM job_attempts WHERE job_id IN (SELECT id FROM jobs WHERE account_id = ?)`)
	return snap
}

// assertSameRows reports every table whose rows changed.
func assertSameRows(t *testing.T, before, after map[string][]string) {
	t.Helper()
	for table, rows := range after {
		if !slices.Equal(before[table], rows) {
			t.Errorf("B's %s changed:\n before: %v\n after:  %v", table, before[table], rows)
		}
	}
	for table := range before {
		if _, ok := after[table]; !ok {
			t.Errorf("B's %s vanished", table)
		}
	}
}
