package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
)

// send serves a request built by the test (with any headers) and checks the
// response against the document, like the harness's do.
func (h *harness) send(req *http.Request) response {
	h.t.Helper()
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	res := response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
	json.Unmarshal(rec.Body.Bytes(), &res.Body)
	checkContract(h.t, req, res)
	return res
}

// TestContractSweep sends every documented operation the requests every
// endpoint must refuse the same way — no key, a malformed path value, a
// body that is not JSON, a body over 5 MiB, a wrong method, a reused or
// oversized Idempotency-Key — so that every operation's error responses are
// validated against the document, not only the ones the area tests reach
// (and a key whose first request still runs, for the 409).
func TestContractSweep(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		c := mustContract(t)
		ids := h.acme()
		values := map[string]string{
			"pipeline_id":     strconv.FormatInt(ids.Pipelines["sales"], 10),
			"client_id":       strconv.FormatInt(ids.Clients["maria"], 10),
			"entry_id":        "987654",
			"session_id":      strconv.FormatInt(ids.Conversations["c1"], 10),
			"input_node_uuid": ids.InputNodes["sales/web"],
		}
		fill := func(template string, bad bool) string {
			return regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllStringFunc(template, func(p string) string {
				if bad {
					return "not-a-number"
				}
				return values[strings.Trim(p, "{}")]
			})
		}
		huge := `{"x":"` + strings.Repeat("a", httpapi.MaxBodyBytes) + `"}`
		for _, r := range c.routes {
			for method, o := range r.item {
				op := o.(map[string]any)
				method = strings.ToUpper(method)
				if sec, ok := op["security"].([]any); ok && len(sec) == 0 {
					continue
				}
				path := fill(r.template, false)
				_, hasBody := op["requestBody"]
				mutating := method != http.MethodGet
				t.Run(method+" "+r.template, func(t *testing.T) {
					h.t = t
					newReq := func(method, path, body string) *http.Request {
						var req *http.Request
						if body == "" {
							req = httptest.NewRequest(method, path, nil)
						} else {
							req = httptest.NewRequest(method, path, strings.NewReader(body))
							req.Header.Set("Content-Type", "application/json")
						}
						req.Header.Set("Authorization", "Bearer "+acmeKey)
						return req
					}
					expect := func(req *http.Request, status int, code string) {
						t.Helper()
						res := h.send(req)
						if res.Status != status || (code != "" && res.errorCode() != code) {
							t.Errorf("%s %s: %d %s, want %d %s", req.Method, req.URL.Path, res.Status, res.errorCode(), status, code)
						}
					}

					noKey := newReq(method, path, "")
					noKey.Header.Del("Authorization")
					expect(noKey, http.StatusUnauthorized, "")
					expect(newReq(http.MethodPut, path, ""), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
					if strings.Contains(r.template, "_id}") {
						expect(newReq(method, fill(r.template, true), `{}`), http.StatusUnprocessableEntity, "")
					}
					if hasBody {
						res := h.send(newReq(method, path, `{"client`))
						if res.Status != http.StatusUnprocessableEntity || res.str("detail", 0, "type") != "json_invalid" {
							t.Errorf("malformed JSON: %d %s", res.Status, res.Raw)
						}
					}
					if hasBody || mutating {
						expect(newReq(method, path, huge), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
					}
					if mutating {
						long := newReq(method, path, `{}`)
						long.Header.Set("Idempotency-Key", strings.Repeat("k", 256))
						expect(long, http.StatusBadRequest, "VALIDATION_ERROR")
						key := "sweep-" + method + r.template
						first := newReq(method, path, `{"entry_ids": [987654], "client_ids": [987654]}`)
						first.Header.Set("Idempotency-Key", key)
						h.send(first)
						again := newReq(method, path, `{"client_ids": [987655]}`)
						again.Header.Set("Idempotency-Key", key)
						expect(again, http.StatusBadRequest, "IDEMPOTENCY_KEY_REUSED")

						// A key whose first request is still running.
						body := `{"running": true}`
						sum := sha256.Sum256([]byte(body))
						now := h.clock.Now()
						if _, err := store.Exec(context.Background(), `INSERT INTO idempotency_keys (account_id, idem_key, route, request_hash, state, created_at, locked_until)
							VALUES (?, ?, ?, ?, 'running', ?, ?)`, h.ids["acme"].Account.ID, key+"-running", method+" "+r.template,
							hex.EncodeToString(sum[:]), db.Micros(now), db.Micros(now.Add(time.Minute))); err != nil {
							t.Fatal(err)
						}
						busy := newReq(method, path, body)
						busy.Header.Set("Idempotency-Key", key+"-running")
						expect(busy, http.StatusConflict, "IDEMPOTENCY_IN_PROGRESS")
					}
				})
			}
		}
	})
}
