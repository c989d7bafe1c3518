package httpapi_test

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func (h *harness) doIdem(path, key, body string) response {
	req := httptest.NewRequest("POST", path, bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+acmeKey)
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	return response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
}

func TestIdempotencyKey(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		path := leadflow + "/ingest/" + webNode + "/batch"
		body := `{"clients":[{"phone_number":"+34611999001","first_name":"Idem"}]}`
		first := h.doIdem(path, "abc-1", body).must(t, 200)
		if first.Header.Get("Idempotent-Replayed") != "" {
			t.Error("first response marked as replayed")
		}
		again := h.doIdem(path, "abc-1", body).must(t, 200)
		if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Raw, again.Raw) {
			t.Errorf("replay differs:\n%s\n%s", first.Raw, again.Raw)
		}
		if n := h.count("clients", "phone_national = '611999001'"); n != 1 {
			t.Errorf("clients = %d", n)
		}
		reused := h.doIdem(path, "abc-1", `{"clients":[{"phone_number":"+34611999002"}]}`)
		if reused.Status != 400 || !bytes.Contains(reused.Raw, []byte("IDEMPOTENCY_KEY_REUSED")) {
			t.Errorf("reused key: %d %s", reused.Status, reused.Raw)
		}
		// 4xx answers are kept too; the key is per route.
		bad := h.doIdem(path, "abc-2", `{"clients":[]}`).must(t, 422)
		if again := h.doIdem(path, "abc-2", `{"clients":[]}`); again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(bad.Raw, again.Raw) {
			t.Error("422 not replayed")
		}
		// A key still running answers 409.
		store.Exec(t.Context(), `UPDATE idempotency_keys SET state = 'running', locked_until = ? WHERE idem_key = 'abc-1'`, db.Micros(testNow.Add(60e9)))
		if busy := h.doIdem(path, "abc-1", body); busy.Status != 409 || !bytes.Contains(busy.Raw, []byte("IDEMPOTENCY_IN_PROGRESS")) {
			t.Errorf("busy: %d %s", busy.Status, busy.Raw)
		}
	})
}
