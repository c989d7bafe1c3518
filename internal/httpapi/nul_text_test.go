package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// A JSON "\u0000" in a typed text field is refused like a wrong type (422
// string_type, or the failed row of an ingest), a lone surrogate arrives as
// U+FFFD, and free-form data keeps the NUL as the JSON escape it came as:
// on PostgreSQL, which cannot store a NUL in a text, none of them is a 500
// (docs/api-notes.md, "Input hygiene").
func TestNULAndSurrogatesInJSON(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		node := "/api/v2/public/leadflow/ingest/" + a.InputNodes["sales/web"]
		booking := func(hour, extra string) string {
			return `{"client":{"first_name":"L","phone":"+34611000001"},"service_name":"Limpieza dental","professional_name":"Dr. López",
				"event_type_name":"In person","start_at":"2026-12-01T` + hour + `:00:00","end_at":"2026-12-01T` + hour + `:30:00","timezone":"Europe/Madrid",` + extra + `}`
		}
		message := fmt.Sprintf("%s/%d/messages", adminChat, a.Conversations["c1"])
		for _, test := range []struct {
			name, method, path, key, body string
			want                          int
			wantIn                        string
		}{
			{"ingest first_name", "POST", node, acmeKey, `{"phone_number":"+34600999001","first_name":"A\u0000"}`, 400, `first_name: Input should be a valid string`},
			{"ingest data keeps the escape", "POST", node, acmeKey, `{"phone_number":"+34600999002","data":{"k\u0000":"v\u0000"}}`, 200, `"status":"created"`},
			{"ingest lone surrogate", "POST", node, acmeKey, `{"phone_number":"+34600999003","first_name":"A\ud800"}`, 200, `"status":"created"`},
			{"waitlist notes", "POST", wl + "/entries", acmeKey,
				fmt.Sprintf(`{"phone":"+34612000101","service_ids":[%d],"notes":"n\u0000"}`, a.Services["cleaning"]), 422, `"loc":["body","notes"]`},
			{"waitlist batch notes", "POST", wl + "/entries/batch", acmeKey,
				fmt.Sprintf(`{"waitlist_id":%d,"entries":[{"phone":"+34612000102","service_ids":[%d],"notes":"n\u0000"}]}`, a.Waitlists["main"], a.Services["cleaning"]), 400, `"IMPORT_HAS_ERRORS"`},
			{"booking notes", "POST", "/api/v2/public/calendar/events", acmeKey, booking("10", `"notes":"n\u0000"`), 422, `"loc":["body","notes"]`},
			{"booking lone surrogate", "POST", "/api/v2/public/calendar/events", acmeKey, booking("11", `"notes":"n\udfff"`), 200, `"notes":"n` + "\uFFFD" + `"`},
			{"chat message", "POST", message, adminKey, `{"from":"client","content":"c\u0000"}`, 422, `"loc":["body","content"]`},
			{"chat message metadata", "POST", message, adminKey, `{"from":"client","content":"c","metadata":{"k\u0000":"\u0000"}}`, 200, `"session_id"`},
			{"workspace", "PUT", "/api/v2/admin/workspaces/acme", adminKey, `{"account":{"slug":"acme"},"services":[{"key":"cleaning","name":"L\u0000"}]}`, 400, `must not contain the NUL character`},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := h.do(test.method, test.path, test.key, test.body)
				if res.Status != test.want || !strings.Contains(string(res.Raw), test.wantIn) {
					t.Fatalf("%d %s, want %d containing %s", res.Status, res.Raw, test.want, test.wantIn)
				}
			})
		}
		var data, name string
		store.QueryRow(t.Context(), `SELECT data FROM clients WHERE phone_national = '600999002'`).Scan(&data)
		store.QueryRow(t.Context(), `SELECT first_name FROM clients WHERE phone_national = '600999003'`).Scan(&name)
		if !strings.Contains(data, `"k\u0000":"v\u0000"`) || name != "A\uFFFD" {
			t.Errorf("stored data %s, first name %q", data, name)
		}
	})
}
