package workspace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

var tables = []string{"accounts", "api_keys", "users", "ai_agents", "event_types", "professionals", "services",
	"service_professionals", "service_event_types", "clients", "tags", "client_tags", "waitlists", "waitlist_services",
	"disposition_tags", "pipelines", "stages", "input_nodes", "cards", "card_events", "conversations", "messages", "webhooks", "channels"}

// snapshot renders every row of every table, to prove an apply wrote nothing.
func snapshot(t *testing.T, store *db.DB) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		rows, err := store.Query(context.Background(), "SELECT * FROM "+table+" ORDER BY 1, 2")
		if err != nil {
			t.Fatal(err)
		}
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
			fmt.Fprintf(&b, "%s %v\n", table, vals)
		}
		rows.Close()
	}
	return b.String()
}

func applier(store *db.DB, now time.Time) *workspace.Applier {
	return &workspace.Applier{DB: store, Now: func() time.Time { return now }}
}

func TestApplyTwiceIsIdempotent(t *testing.T) {
	data, err := os.ReadFile("testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		first, err := applier(store, time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)).Apply(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if first.APIKeys["main"] != "pk_test_acme_main" || len(first.APIKeys) != 3 {
			t.Errorf("first api_keys = %v", first.APIKeys)
		}
		if first.IDs.InputNodes["sales/web"] != "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01" {
			t.Errorf("input node = %v", first.IDs.InputNodes)
		}
		if len(first.IDs.Stages) != 3 || first.IDs.Clients["maria"] == 0 || first.IDs.Conversations["c1"] == 0 {
			t.Errorf("ids = %+v", first.IDs)
		}
		before := snapshot(t, store)
		// A later apply (another clock) must neither write nor change ids.
		second, err := applier(store, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)).Apply(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(second.APIKeys) != 0 {
			t.Errorf("second api_keys = %v, want {} (keys are shown once)", second.APIKeys)
		}
		if !reflect.DeepEqual(first.IDs, second.IDs) || first.Account != second.Account {
			t.Errorf("ids changed:\n%+v\n%+v", first.IDs, second.IDs)
		}
		if after := snapshot(t, store); after != before {
			t.Errorf("second apply wrote to the store:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		// The output is the documented JSON shape.
		out, _ := json.Marshal(second)
		for _, key := range []string{`"account":{"id":`, `"api_keys":{}`, `"stages":{"sales/contacted":`, `"input_nodes":{"sales/web":"0b7d6c52`} {
			if !strings.Contains(string(out), key) {
				t.Errorf("output %s lacks %s", out, key)
			}
		}
		// Conversation counters come from the messages.
		var count int
		var updated, last int64
		store.QueryRow(ctx, "SELECT message_count, updated_at, last_message_at FROM conversations WHERE id = ?", first.IDs.Conversations["c1"]).Scan(&count, &updated, &last)
		if count != 4 || db.Time(last) != time.Date(2026, 1, 5, 10, 2, 0, 0, time.UTC) || updated != last {
			t.Errorf("conversation counters = %d %v %v", count, db.Time(updated), db.Time(last))
		}
	})
}

func TestInvalidFileWritesNothing(t *testing.T) {
	for _, test := range []struct {
		name, file string
		want       []string
	}{
		{
			name: "bad stage reference",
			file: `account: {slug: bad}
pipelines:
  - key: p
    name: P
    stages:
      - {key: a, name: A}
      - {key: b, name: B}
      - {key: c, name: C, allowed_targets: [a, nope]}`,
			want: []string{`pipelines[0].stages[2].allowed_targets[1]: unknown stage "nope"`},
		},
		{
			name: "many problems at once",
			file: `account: {slug: bad, timezone: Mars/Olympus}
services: [{key: s, name: S, professionals: [ghost]}]
clients: [{key: x, phone: "12"}, {key: x, first_name: Y}]`,
			want: []string{"account.timezone", "services[0].professionals[0]", "clients[0].phone", `clients[1].key: duplicate key "x"`},
		},
		{
			name: "conversation numbers that are not phones",
			file: `account: {slug: bad, default_region: ES}
conversations:
  - {key: a, customer_phone_number: "+34 12"}
  - {key: b, customer_phone_number: "call me"}
  - {key: c, customer_phone_number: "600 111 222"}`,
			want: []string{`conversations[0].customer_phone_number: "+34 12": phone number is too short`,
				`conversations[1].customer_phone_number: "call me"`},
		},
		{
			name: "new objects need their names",
			file: `account: {slug: bad}
users: [{key: u}]
pipelines: [{key: p, stages: [{key: s}]}]
webhooks: [{key: w}]
clients: [{key: c}]`,
			want: []string{"users[0].name: is required for a new user", "pipelines[0].name: is required for a new pipeline",
				"pipelines[0].stages[0].name: is required for a new stage", `webhooks[0].url: "" is not an http(s) URL`,
				"clients[0]: a client needs a name, a phone or an e-mail"},
		},
		{
			name: "a user's professional must exist",
			file: `account: {slug: bad}
users: [{key: u, name: U, role: staff, professional: ghost}]`,
			want: []string{`users[0].professional: unknown professional "ghost"`},
		},
		{
			name: "a given name must not be blank",
			file: `account: {slug: bad}
users: [{key: u, name: ""}]`,
			want: []string{"users[0].name: is required"},
		},
		{
			name: "limits",
			file: `account: {slug: bad, limits: {requests_per_second: -1, burst: 2.5}}`,
			want: []string{"account.limits.requests_per_second: -1 is not a number >= 0", "account.limits.burst: 2.5 is not an integer >= 1"},
		},
		{
			name: "limits of the wrong type",
			file: `{"account": {"slug": "bad", "limits": {"requests_per_second": "fast", "burst": 0}}}`,
			want: []string{"account.limits.requests_per_second: fast is not a number", "account.limits.burst: 0 is not an integer >= 1"},
		},
		{
			name: "a secret that reads as sealed",
			file: `account: {slug: bad}
webhooks: [{key: w, url: "https://example.test/h", secret: "fdenc:v1:abc"}]
pipelines: [{key: p, name: P, stages: [{key: s, name: S, automations: [{kind: webhook, url: "https://example.test/a", secret: "fdenc:v1:x"}]}]}]`,
			want: []string{`webhooks[0].secret: must be the plaintext secret, not a value starting with "fdenc:v1:"`,
				`pipelines[0].stages[0].automations[0].secret: must be the plaintext secret`},
		},
		{
			name: "not yaml",
			file: "account: [",
			want: []string{"not valid YAML"},
		},
		{
			name: "missing slug",
			file: "users: []",
			want: []string{"account.slug: is required"},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				before := snapshot(t, store)
				_, err := applier(store, time.Now()).Apply(context.Background(), []byte(test.file))
				if err == nil {
					t.Fatal("apply succeeded")
				}
				for _, w := range test.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				if after := snapshot(t, store); after != before {
					t.Errorf("invalid file changed the store")
				}
			})
		})
	}
}

// A later file may refer to objects of an earlier one; apply never deletes.
func TestApplyIncrementally(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		a := applier(store, time.Now())
		data, _ := os.ReadFile("testdata/acme.yaml")
		first, err := a.Apply(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Apply(ctx, []byte(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
clients: [{key: juan, first_name: Juan, phone: "611222333", pipelines: [{pipeline: sales, stage: contacted}]}]`))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		store.QueryRow(ctx, "SELECT COUNT(*) FROM clients WHERE account_id = ?", first.Account.ID).Scan(&n)
		if n != 2 || res.IDs.Clients["juan"] == 0 {
			t.Errorf("clients = %d, ids %v", n, res.IDs.Clients)
		}
		var stage int64
		store.QueryRow(ctx, "SELECT stage_id FROM cards WHERE client_id = ?", res.IDs.Clients["juan"]).Scan(&stage)
		if stage != first.IDs.Stages["sales/contacted"] {
			t.Errorf("juan placed on stage %d, want %d", stage, first.IDs.Stages["sales/contacted"])
		}
	})
}
