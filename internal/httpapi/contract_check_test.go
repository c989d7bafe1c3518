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
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/frontdesk/frontdesk/internal/httpapi"
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

var loadContract = sync.OnceValues(func() (*contract, error) { return newContract(httpapi.OpenAPI()) })

// newContract parses an OpenAPI document (the served one, or a test's
// variant of it).
func newContract(raw []byte) (*contract, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
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
}

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

// documentedPath reports whether a request path (or a route's path) is in
// the document: the keyed public API and the keyless surfaces — the patient
// API, manage links with their calendar file, calendar feeds. Operations,
// /docs, /mcp, provider callbacks, the admin routes and the HTML pages
// (/book/…, /m/{token}) are not.
func documentedPath(path string) bool {
	switch {
	case strings.HasPrefix(path, "/api/v2/admin/"):
		return false
	case strings.HasPrefix(path, "/api/v2/"), strings.HasPrefix(path, "/ics/"):
		return true
	case strings.HasPrefix(path, "/m/"):
		return strings.HasSuffix(path, ".ics")
	}
	return false
}

// matchSegment reports whether a request path's segment matches a
// document path's: a literal, or a parameter with optional literal text
// around it ("{feed_token}.ics") that stands for at least one character.
func matchSegment(tmpl, seg string) (ok, literal bool) {
	open := strings.Index(tmpl, "{")
	if open < 0 {
		return tmpl == seg, true
	}
	prefix, suffix := tmpl[:open], tmpl[strings.Index(tmpl, "}")+1:]
	return len(seg) > len(prefix)+len(suffix) && strings.HasPrefix(seg, prefix) && strings.HasSuffix(seg, suffix), false
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
			match, literal := matchSegment(s, segs[j])
			ok = ok && match
			score[j] = match && literal
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
// pattern ("METHOD /path") it checked against ("" when the path is not in
// the document).
func (c *contract) check(method, path string, status int, header http.Header, body []byte) (string, error) {
	if !documentedPath(path) || method == http.MethodHead {
		return "", nil // admin, operations, /docs and the HTML pages are not in the document
	}
	// Off the keyless surfaces' operations (an unknown path, a wrong
	// method) the answer is the router's: its body is checked, but not the
	// headers the keyed API's components require (rate limits per key).
	keyless := !strings.HasPrefix(path, publicPrefix+"/")
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
		keyless = false
	}
	return pattern, c.checkResponse(respPtr, header, body, !keyless)
}

// checkResponse validates the body, and the headers when withHeaders,
// against the response object at respPtr.
func (c *contract) checkResponse(respPtr string, header http.Header, body []byte, withHeaders bool) error {
	resp, _ := c.at(respPtr).(map[string]any)
	if resp == nil {
		return fmt.Errorf("no response object at %s", respPtr)
	}
	var problems []string
	headers, _ := resp["headers"].(map[string]any)
	if !withHeaders {
		headers = nil
	}
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
	content, _ := resp["content"].(map[string]any)
	if _, ok := content["application/json"]; !ok && len(content) == 1 {
		for media := range content { // a file (text/calendar): its type only
			if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, media) {
				problems = append(problems, fmt.Sprintf("Content-Type %q, want %s", ct, media))
			}
		}
	}
	if _, ok := content["application/json"]; ok {
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
