package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/mcp"
	"github.com/frontdesk/frontdesk/internal/mcp/mcptest"
)

// postMCP sends body to base's /mcp with key, as an MCP client would, and
// returns the status, the headers and the body. version is the
// MCP-Protocol-Version header ("" sends none).
func postMCP(t *testing.T, base, key, method, body, version string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+"/mcp", rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// rpcError reads a JSON-RPC error response: its id and error code.
func rpcError(t *testing.T, b []byte) (id any, code int, msg string) {
	t.Helper()
	var body struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &body); err != nil || body.JSONRPC != "2.0" || body.Error == nil {
		t.Fatalf("not a JSON-RPC error: %s (%v)", b, err)
	}
	return body.ID, body.Error.Code, body.Error.Message
}

// TestMCPRefusesBatches: a JSON array body is refused with 400 and -32600
// before any tool runs, whatever protocol version the client claims, and a
// body over the API's cap is refused before it is read in full.
func TestMCPRefusesBatches(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		cleaning := h.acme().Services["cleaning"]
		add := func(id int, phone string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_to_waitlist","arguments":{"phone":%q,"first_name":"Batch","service_ids":[%d]}}}`,
				id, phone, cleaning)
		}
		entries := func() int { return h.count("waitlist_entries", "1 = 1") }
		before := entries()

		for _, test := range []struct {
			name, body, version string
		}{
			{"two calls, 2025-03-26 (which allowed batches)", "[" + add(1, "+34611000001") + "," + add(2, "+34611000002") + "]", "2025-03-26"},
			{"one call, 2025-06-18", "[" + add(1, "+34611000001") + "]", "2025-06-18"},
			{"after whitespace, no version", " \r\n\t [" + add(1, "+34611000001") + "]", ""},
			{"pings", "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 99) + `{"jsonrpc":"2.0","id":2,"method":"ping"}]`, ""},
			{"empty array", "[]", ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				status, hdr, b := postMCP(t, ts.URL, acmeKey, "POST", test.body, test.version)
				if status != http.StatusBadRequest || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
					t.Fatalf("batch: %d %s %s", status, hdr.Get("Content-Type"), b)
				}
				if id, code, msg := rpcError(t, b); id != nil || code != -32600 || msg == "" {
					t.Errorf("batch: id %v code %d message %q", id, code, msg)
				}
				if n := entries(); n != before {
					t.Errorf("a refused batch wrote %d waitlist entries", n-before)
				}
			})
		}

		t.Run("a single request reaches the tool intact", func(t *testing.T) {
			status, _, b := postMCP(t, ts.URL, acmeKey, "POST", " "+add(7, "+34611000007"), "2025-06-18")
			if status != http.StatusOK || strings.Contains(string(b), `"isError":true`) {
				t.Fatalf("single call: %d %s", status, b)
			}
			if n := entries(); n != before+1 {
				t.Fatalf("single call wrote %d entries, want 1: %s", n-before, b)
			}
		})

		t.Run("a body over the API's cap is 413", func(t *testing.T) {
			pad := strings.Repeat("x", httpapi.MaxBodyBytes)
			status, _, b := postMCP(t, ts.URL, acmeKey, "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+pad+`"}}`, "")
			if status != http.StatusRequestEntityTooLarge {
				t.Fatalf("oversized body: %d %s", status, b)
			}
			if _, code, _ := rpcError(t, b); code != -32600 {
				t.Errorf("oversized body: code %d", code)
			}
		})
	})
}

// headerLog is an MCP client transport that adds the key and records the
// status and RateLimit-Remaining of every response.
type headerLog struct {
	key string
	mu  sync.Mutex
	got []struct {
		method    string
		status    int
		remaining string
	}
}

func (l *headerLog) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+l.key)
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		l.mu.Lock()
		l.got = append(l.got, struct {
			method    string
			status    int
			remaining string
		}{r.Method, res.StatusCode, res.Header.Get("RateLimit-Remaining")})
		l.mu.Unlock()
	}
	return res, err
}

// TestMCPRateLimitPerRequest: every request to /mcp (POST, GET, DELETE)
// takes one token of the key's bucket, the same bucket as its API calls.
func TestMCPRateLimitPerRequest(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		const burst = 12
		h.setLimits("acme", 0.001, burst) // the fake clock stands still: no refill
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		ctx := context.Background()

		log := &headerLog{key: acmeKey}
		c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
			HTTPClient: &http.Client{Transport: log}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		mcptest.Call(t, cs, "list_services", nil).MustOK(t, "list_services")
		mcptest.Call(t, cs, "waitlist_summary", nil).MustOK(t, "waitlist_summary")
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		// Raw requests of the other methods count too.
		clientBefore := len(log.got)
		used := clientBefore
		for _, m := range []string{"GET", "DELETE"} {
			status, hdr, b := postMCP(t, ts.URL, acmeKey, m, "", "")
			if want := strconv.Itoa(burst - used - 1); hdr.Get("RateLimit-Remaining") != want {
				t.Fatalf("%s /mcp: %d RateLimit-Remaining %q, want %s: %s", m, status, hdr.Get("RateLimit-Remaining"), want, b)
			}
			used++
		}
		// And so does the API on the same key.
		if _, remaining, _ := h.do("GET", servicesPath, acmeKey, nil).must(t, 200).rl(t); remaining != burst-used-1 {
			t.Fatalf("API after /mcp: remaining %d, want %d", remaining, burst-used-1)
		}
		used++
		for i := used; i < burst; i++ {
			mcptest.Call(t, cs, "list_pipelines", nil).MustOK(t, "list_pipelines")
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_services"}); err == nil {
			t.Fatal("a call past the burst succeeded")
		}

		prev := burst
		for i, g := range log.got {
			if i == clientBefore { // the raw GET, DELETE and API call spent three tokens in between
				prev -= 3
			}
			if g.status == http.StatusTooManyRequests {
				if i != len(log.got)-1 || g.remaining != "0" || prev != 0 {
					t.Errorf("request %d (%s): 429 with %d tokens left", i, g.method, prev)
				}
				continue
			}
			if g.remaining != strconv.Itoa(prev-1) {
				t.Errorf("request %d (%s): RateLimit-Remaining %q, want %d", i, g.method, g.remaining, prev-1)
			}
			prev--
		}
		if last := log.got[len(log.got)-1]; last.status != http.StatusTooManyRequests {
			t.Errorf("the call past the burst: %d", last.status)
		}
	})
}

// TestMCPTranscriptPages: a transcript too large for one tool result is read
// page by page through /mcp, on both engines; the API's own endpoint keeps
// its contract page.
func TestMCPTranscriptPages(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ts := httptest.NewServer(h.srv)
		defer ts.Close()
		session := h.acme().Conversations["c1"]
		for i := 0; i < 3; i++ {
			h.do("POST", fmt.Sprintf("/api/v2/admin/workspaces/acme/conversations/%d/messages", session), "admin-secret",
				map[string]any{"from": "client", "content": strings.Repeat(strconv.Itoa(i), 600_000)}).must(t, 200)
		}
		cs, err := mcpConnect(context.Background(), ts.URL, acmeKey)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var sizes []int
		for offset := 0; ; {
			r := mcptest.Call(t, cs, "get_conversation_messages", map[string]any{"session_id": session, "offset": offset}).MustOK(t, "get_conversation_messages")
			b, _ := json.Marshal(r.Body)
			if len(b) > mcp.MaxResultBytes || len(sizes) > 10 {
				t.Fatalf("page at %d: %d bytes (page %d)", offset, len(b), len(sizes))
			}
			sizes = append(sizes, len(r.Body["messages"].([]any)))
			if r.Body["has_more"] != true {
				break
			}
			offset = int(r.Body["next_offset"].(float64))
		}
		// The fixture's four short messages and the first long one, then one
		// long message a page.
		if fmt.Sprint(sizes) != "[5 1 1]" {
			t.Errorf("pages of %v messages", sizes)
		}
		if res := h.do("GET", fmt.Sprintf("%s/chat/conversations/%d/messages", isoPub, session), acmeKey, nil).must(t, 200); len(res.list("data")) != 7 {
			t.Errorf("the endpoint's page: %d messages", len(res.list("data")))
		}
	})
}
