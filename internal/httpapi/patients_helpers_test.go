package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"regexp"
	"testing"
)

// patientFixtures are applied over acme and other: acme's page verifies
// phones, other's does not, closed's is off.
var patientFixtures = []string{"testdata/booking_page.yaml", "testdata/booking_page_other.yaml", "testdata/booking_page_closed.yaml"}

// patientHeaders are on every answer of the patient API.
var patientHeaders = map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}

// patient sends a request to the patient API from addr (host:port), with
// no key, and fails the test when the answer lacks the patient headers or
// does not match openapi.json (contract_check_test.go).
func (h *harness) patient(method, path, addr string, body any) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, path, rd)
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, req)
	res := response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
	json.Unmarshal(rec.Body.Bytes(), &res.Body)
	checkContract(h.t, req, res)
	for k, v := range patientHeaders {
		if got := rec.Header().Get(k); got != v {
			h.t.Errorf("%s %s -> %d: %s = %q, want %q", method, path, rec.Code, k, got, v)
		}
	}
	return res
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

// lastCode is the last verification code queued to phone, as the patient
// reads it in the message.
func (h *harness) lastCode(phone string) string {
	h.t.Helper()
	var body string
	if err := h.store.QueryRow(context.Background(), `SELECT body FROM outbox WHERE kind = 'verification_code' AND recipient = ?
		ORDER BY id DESC LIMIT 1`, phone).Scan(&body); err != nil {
		h.t.Fatalf("no code for %s: %v", phone, err)
	}
	return sixDigits.FindString(body)
}

// patientProblems lists a 422's items as "loc type" strings.
func patientProblems(t *testing.T, r response) []string {
	t.Helper()
	if r.Status != 422 {
		t.Fatalf("status %d, want 422: %s", r.Status, r.Raw)
	}
	var out []string
	for _, it := range r.list("detail") {
		m := it.(map[string]any)
		loc, _ := json.Marshal(m["loc"])
		out = append(out, string(loc)+" "+m["type"].(string))
	}
	return out
}
