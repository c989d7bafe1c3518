package workspace_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// rowsOf renders the rows of table that belong to account acct, by id and
// column, so two readings can be compared column by column.
func rowsOf(t *testing.T, store *db.DB, table string, acct int64) map[string]string {
	t.Helper()
	where := "account_id = ?"
	if table == "accounts" {
		where = "id = ?"
	}
	rows, err := store.Query(context.Background(), "SELECT * FROM "+table+" WHERE "+where+" ORDER BY 1, 2, 3", acct)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := map[string]string{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, col := range cols {
			v := vals[i]
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			// A row is its id, or the ids a link table joins.
			id := fmt.Sprint(vals[0])
			if cols[0] != "id" {
				id = fmt.Sprint(vals[:3])
			}
			out[id+"."+col] = fmt.Sprint(v)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// changedColumns names the columns whose value differs between two
// readings (a row that appeared counts as all its columns).
func changedColumns(before, after map[string]string) []string {
	set := map[string]bool{}
	for k, v := range after {
		if b, ok := before[k]; !ok || b != v {
			_, col, _ := strings.Cut(k, ".")
			set[col] = true
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			_, col, _ := strings.Cut(k, ".")
			set[col] = true
		}
	}
	var out []string
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// A partial file changes only the keys it gives: for every object kind,
// apply the full fixture, then a file that mentions one field of one
// object, and compare every stored column of that kind's table.
func TestPartialFileKeepsUnmentionedFields(t *testing.T) {
	full, err := os.ReadFile("testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		table   string
		partial string
		changed []string // every column expected to differ; the rest must not
		keeps   []string // stored text that must survive (checked in the table's rows)
	}{
		// A bug found once: PUT with only {account: {slug}} reset name,
		// timezone and region.
		{"account slug only", "accounts", `{"account": {"slug": "acme"}}`, nil,
			[]string{"Acme Clinic", "Europe/Madrid", "ES"}},
		{"account name", "accounts", `account: {slug: acme, name: Acme Dental}`, []string{"name"}, []string{"Europe/Madrid"}},
		{"account limits burst", "accounts", `account: {slug: acme, limits: {burst: 50}}`, []string{"rate_burst"}, []string{"Acme Clinic"}},
		{"account limits rate", "accounts", `account: {slug: acme, limits: {requests_per_second: 2.5}}`, []string{"rate_per_second"}, []string{"50"}},
		{"notifications reminders", "accounts", "account: {slug: acme}\nnotifications: {reminders: [1h]}", []string{"notifications"},
			[]string{`"confirmation_request":true`, `"reminders":["1h"]`}},
		{"api key without expiry", "api_keys", "account: {slug: acme}\napi_keys: [{key: old}]", nil, nil},
		{"api key expiry", "api_keys", "account: {slug: acme}\napi_keys: [{key: old, expires_at: \"2031-01-01T00:00:00Z\"}]", []string{"expires_at"}, nil},
		{"user email", "users", "account: {slug: acme}\nusers: [{key: ana, email: ana2@acme.test}]", []string{"email"}, []string{"Ana Ruiz"}},
		{"user key only", "users", "account: {slug: acme}\nusers: [{key: ana}]", nil, nil},
		{"ai agent key only", "ai_agents", "account: {slug: acme}\nai_agents: [{key: sofia}]", nil, []string{"Sofia"}},
		{"ai agent name", "ai_agents", "account: {slug: acme}\nai_agents: [{key: sofia, name: Sonia}]", []string{"name"}, nil},
		{"event type color", "event_types", "account: {slug: acme}\nevent_types: [{key: visit, color: \"#000000\"}]", []string{"color"}, []string{"In person"}},
		{"professional active", "professionals", "account: {slug: acme}\nprofessionals: [{key: lopez, active: false}]", []string{"active"},
			[]string{"09:00-13:00", "2026-12-24"}},
		{"professional time off", "professionals", "account: {slug: acme}\nprofessionals: [{key: lopez, time_off: []}]", []string{"time_off"},
			[]string{"Dr. López", "09:00-13:00"}},
		{"service color", "services", "account: {slug: acme}\nservices: [{key: cleaning, color: \"#000000\"}]", []string{"color"}, []string{"Limpieza dental"}},
		{"service links kept", "service_professionals", "account: {slug: acme}\nservices: [{key: cleaning, name: Limpieza}]", nil, nil},
		{"waitlist max offers", "waitlists", "account: {slug: acme}\nwaitlists: [{key: main, max_offers: 5}]", []string{"max_offers"}, []string{"General"}},
		{"waitlist services kept", "waitlist_services", "account: {slug: acme}\nwaitlists: [{key: main}]", nil, nil},
		{"webhook active", "webhooks", "account: {slug: acme}\nwebhooks: [{key: crm, active: false}]", []string{"active"},
			[]string{"https://example.test/hooks", "appointment.booked", "s3cret"}},
		{"disposition tag color", "disposition_tags", "account: {slug: acme}\ndisposition_tags: [{key: won, color: \"#111111\"}]", []string{"color"}, []string{"Booked"}},
		{"pipeline description", "pipelines", "account: {slug: acme}\npipelines: [{key: sales, description: Other}]", []string{"description"}, []string{"Sales"}},
		{"stage color", "stages", "account: {slug: acme}\npipelines: [{key: sales, stages: [{key: contacted, color: \"#123456\"}]}]", []string{"color"},
			[]string{"Hola {first_name}", "s3cret"}},
		{"stage key only keeps rules", "stages", "account: {slug: acme}\npipelines: [{key: sales, stages: [{key: new}]}]", nil, nil},
		{"input node lead value", "input_nodes", "account: {slug: acme}\npipelines: [{key: sales, input_nodes: [{key: web, default_lead_value: 99}]}]",
			[]string{"default_lead_value"}, []string{"round_robin", "Website"}},
		{"input node strategy", "input_nodes", "account: {slug: acme}\npipelines: [{key: sales, input_nodes: [{key: web, assignment: {strategy: least_loaded}}]}]",
			[]string{"assignment_strategy"}, nil},
		{"client last name", "clients", "account: {slug: acme}\nclients: [{key: maria, last_name: Pérez}]", []string{"last_name", "name_search", "search_text"},
			[]string{"maria@example.com", "gold", "600111222"}},
		{"client company", "clients", "account: {slug: acme}\nclients: [{key: maria, company: Acme}]", []string{"company"}, []string{"María"}},
		{"client tags and cards kept", "client_tags", "account: {slug: acme}\nclients: [{key: maria, first_name: Mary}]", nil, nil},
		{"conversation summary", "conversations", "account: {slug: acme}\nconversations: [{key: c1, summary: Changed}]", []string{"summary", "updated_at"},
			[]string{"resolved", "positive", "+34600111222"}},
		{"conversation key only", "conversations", "account: {slug: acme}\nconversations: [{key: c1}]", nil, nil},
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
		for _, test := range tests {
			t.Run(test.name, func(t *testing.T) {
				// The full file puts back every value a case changed.
				res, err := applier(store, now).Apply(ctx, full)
				if err != nil {
					t.Fatal(err)
				}
				before := rowsOf(t, store, test.table, res.Account.ID)
				if len(before) == 0 {
					t.Fatalf("no %s rows after the full file", test.table)
				}
				now = now.Add(time.Hour)
				if _, err := applier(store, now).Apply(ctx, []byte(test.partial)); err != nil {
					t.Fatal(err)
				}
				after := rowsOf(t, store, test.table, res.Account.ID)
				if got := changedColumns(before, after); strings.Join(got, ",") != strings.Join(test.changed, ",") {
					t.Errorf("changed columns = %v, want %v\nbefore: %v\nafter:  %v", got, test.changed, before, after)
				}
				text := fmt.Sprint(after)
				for _, k := range test.keeps {
					if !strings.Contains(text, k) {
						t.Errorf("%s lost %q: %v", test.table, k, after)
					}
				}
			})
		}
	})
}
