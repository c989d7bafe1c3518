package httpapi_test

// The contract check: every response the HTTP tests produce through the
// harness is validated against openapi.json (status, headers and body), so
// the document cannot drift from the server.
//
// Validation uses santhosh-tekuri/jsonschema, a complete JSON Schema 2020-12
// validator, over the document itself: OpenAPI 3.1 schemas are 2020-12
// schemas, so each response schema is compiled once, by JSON pointer into
// the document, with its $refs resolved in place. (kin-openapi v0.152.0 reads
// 3.1 too, but it recompiles the schema on every validation and falls back
// to its 3.0 validator for schemas with internal $refs that use no 2020-12
// keyword, which would let 3.1 semantics slip.)

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// contractPending lists routes ("METHOD /api/v2/public/...", as in the
// document) whose handlers are still stubs: their responses are not checked
// yet. Every route is implemented today, so it is empty; a new area adds its
// routes here while its handlers are stubs.
var contractPending = map[string]bool{}

const (
	publicPrefix = "/api/v2/public"
	docURL       = "https://frontdesk.invalid/openapi.json"
)

// contract is the parsed document with a cache of compiled schemas.
type contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	routes   []contractRoute

	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema
}

type contractRoute struct {
	template string   // the document's path
	segs     []string // its segments; "{x}" matches any non-empty segment
	item     map[string]any
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(httpapi.OpenAPI()))
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	c := &contract{doc: doc.(map[string]any), compiler: jsonschema.NewCompiler(), schemas: map[string]*jsonschema.Schema{}}
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	c.compiler.AssertFormat()
	if err := c.compiler.AddResource(docURL, doc); err != nil {
		return nil, err
	}
	for path, item := range c.doc["paths"].(map[string]any) {
		c.routes = append(c.routes, contractRoute{template: path, segs: strings.Split(path, "/"), item: item.(map[string]any)})
	}
	return c, nil
})

func mustContract(t testing.TB) *contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// schema compiles the schema at a JSON pointer into the document, once.
func (c *contract) schema(ptr string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[ptr]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(docURL + "#" + (&url.URL{Fragment: ptr}).EscapedFragment())
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", ptr, err)
	}
	c.schemas[ptr] = s
	return s, nil
}

// at returns the value at a JSON pointer.
func (c *contract) at(ptr string) any {
	var cur any = c.doc
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			cur = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(x) {
				return nil
			}
			cur = x[i]
		default:
			return nil
		}
	}
	return cur
}

// deref follows a $ref of the object at ptr and returns the final pointer.
func (c *contract) deref(ptr string) string {
	for range 8 {
		m, _ := c.at(ptr).(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return ptr
		}
		ptr = strings.TrimPrefix(ref, "#")
	}
	return ptr
}

func escapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// match finds the document path of a request path: the one whose literal
// segments match, preferring literals over parameters from the left (the
// ServeMux rule for these routes).
func (c *contract) match(path string) *contractRoute {
	segs := strings.Split(path, "/")
	var best *contractRoute
	var bestScore []bool
	for i := range c.routes {
		r := &c.routes[i]
		if len(r.segs) != len(segs) {
			continue
		}
		score := make([]bool, len(segs))
		ok := true
		for j, s := range r.segs {
			switch {
			case strings.HasPrefix(s, "{"):
				ok = ok && segs[j] != ""
			case s == segs[j]:
				score[j] = true
			default:
				ok = false
			}
		}
		if ok && (best == nil || better(score, bestScore)) {
			best, bestScore = r, score
		}
	}
	return best
}

func better(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return false
}

// check validates one response of method on path. It returns the route
// pattern ("METHOD /path") it checked against ("" when not a public path).
func (c *contract) check(method, path string, status int, header http.Header, body []byte) (string, error) {
	if !strings.HasPrefix(path, publicPrefix+"/") || method == http.MethodHead {
		return "", nil // admin, operations and /docs are not part of the public document
	}
	route := c.match(path)
	var respPtr, pattern string
	switch {
	case route == nil:
		pattern = "unmatched " + path
		switch status {
		case http.StatusUnauthorized:
			respPtr = "/components/responses/Unauthorized"
		case http.StatusNotFound:
			respPtr = "/components/responses/NotFound"
		default:
			return pattern, fmt.Errorf("%s %s matches no documented path, but answered %d (want 401 or 404)", method, path, status)
		}
	case route.item[strings.ToLower(method)] == nil:
		pattern = method + " " + route.template
		switch status {
		case http.StatusUnauthorized:
			respPtr = "/components/responses/Unauthorized"
		case http.StatusMethodNotAllowed:
			respPtr = "/components/responses/MethodNotAllowed"
		default:
			return pattern, fmt.Errorf("%s is not documented, but answered %d (want 401 or 405)", pattern, status)
		}
	default:
		pattern = method + " " + route.template
		opPtr := "/paths/" + escapePtr(route.template) + "/" + strings.ToLower(method)
		code := strconv.Itoa(status)
		if c.at(opPtr+"/responses/"+code) == nil {
			if c.at(opPtr+"/responses/default") == nil {
				return pattern, fmt.Errorf("%s answered %d, which the document does not list", pattern, status)
			}
			code = "default"
		}
		respPtr = c.deref(opPtr + "/responses/" + code)
	}
	return pattern, c.checkResponse(respPtr, header, body)
}

// checkResponse validates headers and body against the response object at
// respPtr.
func (c *contract) checkResponse(respPtr string, header http.Header, body []byte) error {
	resp, _ := c.at(respPtr).(map[string]any)
	if resp == nil {
		return fmt.Errorf("no response object at %s", respPtr)
	}
	var problems []string
	headers, _ := resp["headers"].(map[string]any)
	for name := range headers {
		h, _ := c.at(c.deref(respPtr + "/headers/" + escapePtr(name))).(map[string]any)
		values := header.Values(name)
		if req, _ := h["required"].(bool); req && len(values) == 0 {
			problems = append(problems, "missing header "+name)
		}
		sch, _ := h["schema"].(map[string]any)
		if enum, ok := sch["enum"].([]any); ok && len(values) > 0 && !slices.Contains(enum, any(values[0])) {
			problems = append(problems, fmt.Sprintf("header %s = %q, want one of %v", name, values[0], enum))
		}
	}
	if _, ok := c.at(respPtr + "/content/application~1json").(map[string]any); ok {
		if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			problems = append(problems, fmt.Sprintf("Content-Type %q, want application/json", ct))
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			problems = append(problems, "body is not JSON: "+err.Error())
		} else {
			sch, err := c.schema(respPtr + "/content/application~1json/schema")
			if err != nil {
				return err
			}
			if err := sch.Validate(v); err != nil {
				problems = append(problems, "body does not match "+respPtr+":\n"+indentLines(err.Error()))
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

func indentLines(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// checkContract is the harness hook: it fails the test when a response does
// not match the document.
func checkContract(t testing.TB, req *http.Request, res response) {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Errorf("contract: %v", err)
		return
	}
	pattern, err := c.check(req.Method, req.URL.Path, res.Status, res.Header, res.Raw)
	if pattern != "" {
		contractSeen.Store(fmt.Sprintf("%s %d", pattern, res.Status), true)
	}
	if err != nil && !contractPending[pattern] {
		t.Errorf("response does not match openapi.json: %s %s -> %d\n%v\nbody: %s", req.Method, req.URL.RequestURI(), res.Status, err, truncate(res.Raw, 2000))
	}
}

// contractSeen records every "METHOD /path STATUS" the tests produced, for
// the coverage report of TestMain.
var contractSeen sync.Map

// TestMain runs the package's tests; with FRONTDESK_CONTRACT_COVERAGE=1 it
// then prints which documented responses the tests produced and which they
// never did.
func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv("FRONTDESK_CONTRACT_COVERAGE") != "" {
		reportContractCoverage()
	}
	os.Exit(code)
}

func reportContractCoverage() {
	c, err := loadContract()
	if err != nil {
		return
	}
	var seen, missing []string
	for _, r := range c.routes {
		for method, o := range r.item {
			for status := range o.(map[string]any)["responses"].(map[string]any) {
				key := strings.ToUpper(method) + " " + r.template + " " + status
				if _, ok := contractSeen.Load(key); ok {
					seen = append(seen, key)
				} else {
					missing = append(missing, key)
				}
			}
		}
	}
	sort.Strings(missing)
	fmt.Printf("contract coverage: %d of %d documented responses produced by the tests\n", len(seen), len(seen)+len(missing))
	for _, k := range missing {
		fmt.Println("  never produced:", k)
	}
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// ---------------------------------------------------------------------------
// The document itself.

// TestOpenAPIDocument checks the document: version, schemas (compiled, which
// also checks them against the 2020-12 metaschema), operations, examples,
// and that it lists exactly the public routes of routes.go and the error
// codes of internal/errs.
func TestOpenAPIDocument(t *testing.T) {
	c := mustContract(t)
	if v := c.doc["openapi"]; v != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", v)
	}
	for name := range c.doc["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := c.schema("/components/schemas/" + name); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}

	documented := map[string]bool{}
	opIDs := map[string]string{}
	for _, r := range c.routes {
		for method, o := range r.item {
			op, _ := o.(map[string]any)
			pattern := strings.ToUpper(method) + " " + r.template
			documented[pattern] = true
			opPtr := "/paths/" + escapePtr(r.template) + "/" + method
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("%s: no operationId", pattern)
			} else if prev, dup := opIDs[id]; dup {
				t.Errorf("operationId %s used by %s and %s", id, prev, pattern)
			}
			opIDs[id] = pattern
			if tags, _ := op["tags"].([]any); op["summary"] == nil || op["description"] == nil || len(tags) == 0 {
				t.Errorf("%s: summary, description and tags are required", pattern)
			}
			responses := op["responses"].(map[string]any)
			public := false
			if sec, ok := op["security"].([]any); ok && len(sec) == 0 {
				public = true
			}
			want := []string{"200"}
			if !public {
				want = []string{"401", "500"}
			}
			for _, status := range want {
				if responses[status] == nil && !(status == "200" && responses["201"] != nil) {
					t.Errorf("%s: response %s not documented", pattern, status)
				}
			}
			// Every path parameter is declared.
			declared := map[string]bool{}
			hasQuery := false
			params, _ := op["parameters"].([]any)
			for i := range params {
				p := c.at(c.deref(fmt.Sprintf("%s/parameters/%d", opPtr, i))).(map[string]any)
				switch p["in"] {
				case "path":
					declared[p["name"].(string)] = p["required"] == true
				case "query":
					hasQuery = true
				}
			}
			for _, seg := range r.segs {
				if strings.HasPrefix(seg, "{") && !declared[strings.Trim(seg, "{}")] {
					t.Errorf("%s: path parameter %s not declared as required", pattern, seg)
				}
			}
			if (len(declared) > 0 || hasQuery || op["requestBody"] != nil) && responses["422"] == nil {
				t.Errorf("%s: takes input but documents no 422", pattern)
			}
			for status := range responses {
				checkExamples(t, c, c.deref(opPtr+"/responses/"+status), pattern+" "+status)
			}
			if op["requestBody"] != nil {
				checkExamples(t, c, c.deref(opPtr+"/requestBody"), pattern+" request")
			}
		}
	}

	// Webhooks (sent by the server) are documented like operations, every
	// event type a webhook can subscribe to and no other.
	var webhookNames []string
	for name := range mapAt(c, "/webhooks") {
		webhookNames = append(webhookNames, name)
	}
	sort.Strings(webhookNames)
	if events := slices.Sorted(slices.Values(jobs.EventTypes)); !slices.Equal(webhookNames, events) {
		t.Errorf("documented webhooks %v, event types %v", webhookNames, events)
	}
	for name, item := range mapAt(c, "/webhooks") {
		for method, o := range item.(map[string]any) {
			op := o.(map[string]any)
			if op["operationId"] == nil || op["requestBody"] == nil || op["responses"] == nil {
				t.Errorf("webhook %s %s: operationId, requestBody and responses are required", method, name)
			}
			if _, err := c.schema("/webhooks/" + escapePtr(name) + "/" + method + "/requestBody/content/application~1json/schema"); err != nil {
				t.Errorf("webhook %s: %v", name, err)
			}
		}
	}

	// The document lists exactly the public routes of routes.go.
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	inCode := map[string]bool{}
	for _, m := range regexp.MustCompile(`s\.handle\("([A-Z]+) "\+p\+"([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
		inCode[m[1]+" "+publicPrefix+m[2]] = true
	}
	if len(inCode) < 20 {
		t.Fatalf("found only %d public routes in routes.go; has its form changed?", len(inCode))
	}
	for p := range inCode {
		if !documented[p] {
			t.Errorf("route %s is not in openapi.json", p)
		}
	}
	for p := range documented {
		if !inCode[p] {
			t.Errorf("openapi.json documents %s, which routes.go does not serve", p)
		}
	}

	// The ErrorCode schema lists exactly the codes of internal/errs.
	codes := errsCodes(t)
	var inDoc []string
	for _, o := range c.at("/components/schemas/ErrorCode/oneOf").([]any) {
		inDoc = append(inDoc, o.(map[string]any)["const"].(string))
	}
	sort.Strings(codes)
	sort.Strings(inDoc)
	if !slices.Equal(codes, inDoc) {
		t.Errorf("ErrorCode lists %v;\ninternal/errs has %v", inDoc, codes)
	}
}

// checkExamples validates every example of a response or request body
// against its schema.
func checkExamples(t *testing.T, c *contract, ptr, what string) {
	t.Helper()
	for mt, v := range mapAt(c, ptr+"/content") {
		base := ptr + "/content/" + escapePtr(mt)
		sch, err := c.schema(base + "/schema")
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		examples, _ := v.(map[string]any)["examples"].(map[string]any)
		for name := range examples {
			value := c.at(base + "/examples/" + escapePtr(name) + "/value")
			if err := sch.Validate(value); err != nil {
				t.Errorf("%s example %q does not match its schema:\n%v", what, name, err)
			}
		}
	}
}

func mapAt(c *contract, ptr string) map[string]any {
	m, _ := c.at(ptr).(map[string]any)
	return m
}

// errsCodes reads the string constants of internal/errs.
func errsCodes(t *testing.T) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "../errs/errs.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if gd, ok := n.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			for _, spec := range gd.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						out = append(out, s)
					}
				}
			}
		}
		return true
	})
	return out
}

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
// embedded document byte for byte, a rendered page naming every operation,
// and conditional requests.
func TestOpenAPIServed(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		res := h.do("GET", "/api/v2/public/openapi.json", "", nil).must(t, http.StatusOK)
		if !bytes.Equal(res.Raw, httpapi.OpenAPI()) {
			t.Error("served document differs from the embedded one")
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		// A bad key does not matter either.
		h.do("GET", "/api/v2/public/openapi.json", "pk_wrong_wrong_wrong", nil).must(t, http.StatusOK)
		// Writing is still a 405 (after authentication, like every public path).
		h.do("POST", "/api/v2/public/openapi.json", acmeKey, nil).must(t, http.StatusMethodNotAllowed)

		page := h.do("GET", "/docs", "", nil).must(t, http.StatusOK)
		if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("/docs Content-Type = %q", ct)
		}
		html := string(page.Raw)
		c := mustContract(t)
		for _, r := range c.routes {
			if !strings.Contains(html, r.template) {
				t.Errorf("/docs does not show %s", r.template)
			}
		}
		for _, want := range []string{"INGEST_ROLLED_BACK", "Idempotency-Key", "not_found_client_ids", "IngestRowResult",
			"<code>valid_*_names</code>", "<strong>a 500 may be retried</strong>", "appointment.booked", `class="add">additive`} {
			if !strings.Contains(html, want) {
				t.Errorf("/docs does not mention %s", want)
			}
		}
		for _, banned := range []string{"<script", "http://", "https://"} {
			if strings.Contains(html, banned) {
				t.Errorf("/docs contains %q: the page must be self-contained", banned)
			}
		}

		// Compressed for clients that accept it.
		zreq := httptest.NewRequest("GET", "/api/v2/public/openapi.json", nil)
		zreq.Header.Set("Accept-Encoding", "gzip")
		zrec := httptest.NewRecorder()
		h.srv.ServeHTTP(zrec, zreq)
		zr, err := gzip.NewReader(zrec.Body)
		if err != nil {
			t.Fatalf("gzip: %v (Content-Encoding %q)", err, zrec.Header().Get("Content-Encoding"))
		}
		unzipped, _ := io.ReadAll(zr)
		if zrec.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(unzipped, httpapi.OpenAPI()) {
			t.Error("gzip answer differs from the document")
		}

		// Conditional GET.
		req := httptest.NewRequest("GET", "/docs", nil)
		req.Header.Set("If-None-Match", page.Header.Get("ETag"))
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified {
			t.Errorf("If-None-Match: status %d, want 304", rec.Code)
		}
	})
}

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
