package httpapi_test

// The contract check catches drift: valid responses bent one way each.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestContractCatchesDrift shows that the check fails when a response
// changes shape: each case is a valid response bent one way.
func TestContractCatchesDrift(t *testing.T) {
	c := mustContract(t)
	example := func(ptr string) map[string]any {
		var v map[string]any
		b, _ := json.Marshal(c.at(ptr))
		json.Unmarshal(b, &v)
		return v
	}
	const (
		ingest  = "/paths/~1api~1v2~1public~1leadflow~1ingest~1{input_node_uuid}~1batch/post/responses/200/content/application~1json/examples/mixed/value"
		entry   = "/paths/~1api~1v2~1public~1calendar~1waitlist~1entries~1{entry_id}/get/responses/200/content/application~1json/examples/entry/value"
		convs   = "/paths/~1api~1v2~1public~1chat~1conversations/get/responses/200/content/application~1json/examples/page/value"
		booking = "/paths/~1api~1v2~1public~1calendar~1events/post/responses/200/content/application~1json/examples/booked/value"
	)
	jsonHeader := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"abc"},
		"Ratelimit-Limit": {"200"}, "Ratelimit-Remaining": {"199"}, "Ratelimit-Reset": {"1"}}
	for _, test := range []struct {
		name, method, path string
		status             int
		body               any
		header             http.Header
		wantErr            string // "" for a valid response
	}{
		{"ingest as documented", "POST", "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch", 200, example(ingest), nil, ""},
		{"ingest with an extra field", "POST", "/api/v2/public/leadflow/ingest/x/batch", 200,
			with(example(ingest), func(m map[string]any) { m["accepted"] = 3 }), nil, "additional properties 'accepted'"},
		{"ingest without summary", "POST", "/api/v2/public/leadflow/ingest/x/batch", 200,
			with(example(ingest), func(m map[string]any) { delete(m, "summary") }), nil, "missing property 'summary'"},
		{"ingest row with an unknown status", "POST", "/api/v2/public/leadflow/ingest/x/batch", 200,
			with(example(ingest), func(m map[string]any) { m["results"].([]any)[0].(map[string]any)["status"] = "merged" }), nil, "/results/0/status"},
		{"ingest count as a string", "POST", "/api/v2/public/leadflow/ingest/x/batch", 200,
			with(example(ingest), func(m map[string]any) { m["summary"].(map[string]any)["total"] = "3" }), nil, "want integer"},
		{"ingest row error without its keys", "POST", "/api/v2/public/leadflow/ingest/x/batch", 200,
			with(example(ingest), func(m map[string]any) {
				delete(m["results"].([]any)[2].(map[string]any)["errors"].([]any)[0].(map[string]any), "duplicate_of_index")
			}), nil, "duplicate_of_index"},
		{"waiting-list entry without position", "GET", "/api/v2/public/calendar/waitlist/entries/1", 200,
			with(example(entry), func(m map[string]any) { delete(m["data"].(map[string]any), "position") }), nil, "position"},
		{"timestamp not in UTC Z", "GET", "/api/v2/public/calendar/waitlist/entries/1", 200,
			with(example(entry), func(m map[string]any) { m["data"].(map[string]any)["created_at"] = "2026-11-23T10:00:00+01:00" }), nil, "created_at"},
		{"phone not E.164", "POST", "/api/v2/public/calendar/events", 200,
			with(example(booking), func(m map[string]any) { m["data"].(map[string]any)["client"].(map[string]any)["phone"] = "600999888" }), nil, "phone"},
		{"internal message field leaks", "GET", "/api/v2/public/chat/conversations", 200,
			with(example(convs), func(m map[string]any) {
				m["data"].([]any)[0].(map[string]any)["messages"].([]any)[1].(map[string]any)["tokens"] = 42
			}), nil, "tokens"},
		{"undocumented status", "GET", "/api/v2/public/chat/conversations", 409, map[string]any{}, nil, "does not list"},
		{"error code of another endpoint", "PATCH", "/api/v2/public/leadflow/pipelines/1/clients/2/move", 400,
			map[string]any{"status": "error", "error_code": "IMPORT_HAS_ERRORS", "message": "x", "details": nil}, nil, "error_code"},
		{"MOVE_NOT_ALLOWED without its details", "PATCH", "/api/v2/public/leadflow/pipelines/1/clients/2/move", 400,
			map[string]any{"status": "error", "error_code": "MOVE_NOT_ALLOWED", "message": "x", "details": nil}, nil, "details"},
		{"unknown error code", "GET", "/api/v2/public/leadflow/pipelines/1/stages", 404,
			map[string]any{"status": "error", "error_code": "PIPELINE_NOT_FOUND", "message": "x", "details": nil}, nil, "error_code"},
		{"401 with an error_code", "GET", "/api/v2/public/leadflow/pipelines", 401,
			map[string]any{"detail": "Unauthorized", "error_code": "UNAUTHORIZED"}, nil, "error_code"},
		{"422 item with a header loc", "GET", "/api/v2/public/leadflow/pipelines", 422,
			map[string]any{"detail": []any{map[string]any{"loc": []any{"header", "limit"}, "msg": "x", "type": "int_parsing"}}}, nil, "loc"},
		{"no X-Request-Id", "GET", "/api/v2/public/leadflow/pipelines", 401,
			map[string]any{"detail": "Unauthorized"}, http.Header{"Content-Type": {"application/json"}}, "X-Request-Id"},
		{"wrong method answered 404", "PUT", "/api/v2/public/leadflow/pipelines", 404,
			map[string]any{"status": "error", "error_code": "NOT_FOUND", "message": "x", "details": nil}, nil, "want 401 or 405"},
		{"no RateLimit headers", "GET", "/api/v2/public/leadflow/pipelines", 401,
			map[string]any{"detail": "Unauthorized"}, http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"abc"}}, "RateLimit-Remaining"},
		{"429 without Retry-After", "GET", "/api/v2/public/leadflow/pipelines", 429,
			map[string]any{"status": "error", "error_code": "RATE_LIMITED", "message": "x", "details": map[string]any{"retry_after_seconds": 1}}, nil, "Retry-After"},
		{"405 as documented", "PUT", "/api/v2/public/leadflow/pipelines", 405,
			map[string]any{"status": "error", "error_code": "METHOD_NOT_ALLOWED", "message": "x", "details": nil}, nil, ""},
	} {
		t.Run(test.name, func(t *testing.T) {
			body, _ := json.Marshal(test.body)
			h := test.header
			if h == nil {
				h = jsonHeader
			}
			_, err := c.check(test.method, test.path, test.status, h, body)
			switch {
			case test.wantErr == "" && err != nil:
				t.Fatalf("unexpected mismatch: %v", err)
			case test.wantErr != "" && err == nil:
				t.Fatalf("the drift was not caught")
			case test.wantErr != "" && !strings.Contains(err.Error(), test.wantErr):
				t.Fatalf("error does not mention %q:\n%v", test.wantErr, err)
			}
		})
	}
}

func with(m map[string]any, f func(map[string]any)) map[string]any {
	f(m)
	return m
}

// TestOpenAPIServed checks the two reference routes: no key needed, the

// BenchmarkContractCheck measures the harness hook on the largest response
// shape: a 500-row ingest answer.
func BenchmarkContractCheck(b *testing.B) {
	c := mustContract(b)
	ex := c.at("/paths/~1api~1v2~1public~1leadflow~1ingest~1{input_node_uuid}~1batch/post/responses/200/content/application~1json/examples/mixed/value").(map[string]any)
	rows := ex["results"].([]any)
	big := map[string]any{}
	for k, v := range ex {
		big[k] = v
	}
	results := make([]any, 500)
	for i := range results {
		results[i] = rows[i%len(rows)]
	}
	big["results"] = results
	body, _ := json.Marshal(big)
	header := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"x"}}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := c.check("POST", "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch", 200, header, body); err != nil {
			b.Fatal(err)
		}
	}
}
