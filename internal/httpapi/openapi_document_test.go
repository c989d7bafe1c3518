package httpapi_test

// The document itself: its version, operations and schemas, and that it
// lists exactly the public routes of routes.go and the codes of internal/errs.

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/jobs"
)

// The document itself.

// keylessHeaders are on every answer of the keyless surfaces (the patient
// API, manage links, calendar feeds; docs/manage-links.md).
var keylessHeaders = []string{"Cache-Control", "Referrer-Policy", "X-Robots-Tag"}

// TestOpenAPIDocument checks the document: version, schemas (compiled, which
// also checks them against the 2020-12 metaschema), operations, and that it
// lists exactly the routes of routes.go it covers (documentedPath: the keyed
// public API and the keyless surfaces) and the error codes of internal/errs.
// Its examples are checked by TestOpenAPIExamples.
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
			documented[strings.ToUpper(method)+" "+cmp.Or(servedAs[r.template], r.template)] = true
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
			// A keyed operation answers 401 and 500; a keyless surface's
			// is limited per client address (429), and every answer of it
			// carries the privacy headers.
			keyless := public && !strings.HasPrefix(r.template, publicPrefix+"/")
			var want []string
			switch {
			case !public:
				want = []string{"401", "500"}
			case keyless:
				want = []string{"429"}
			}
			if !slices.ContainsFunc(slices.Collect(maps.Keys(responses)), func(s string) bool { return strings.HasPrefix(s, "2") }) {
				t.Errorf("%s: no 2xx response documented", pattern)
			}
			for _, status := range want {
				if responses[status] == nil {
					t.Errorf("%s: response %s not documented", pattern, status)
				}
			}
			for status := range responses {
				respPtr := c.deref(opPtr + "/responses/" + status)
				for _, name := range keylessHeaders {
					if keyless && c.at(respPtr+"/headers/"+name) == nil {
						t.Errorf("%s: response %s does not document header %s", pattern, status, name)
					}
				}
			}
			// Every path parameter is declared. Input that may be refused
			// (a query, a body, a path parameter that is more than any
			// string) needs a 422.
			declared := map[string]bool{}
			mayFail := op["requestBody"] != nil
			params, _ := op["parameters"].([]any)
			for i := range params {
				p := c.at(c.deref(fmt.Sprintf("%s/parameters/%d", opPtr, i))).(map[string]any)
				switch p["in"] {
				case "path":
					declared[p["name"].(string)] = p["required"] == true
					sch, _ := p["schema"].(map[string]any)
					if len(sch) != 1 || sch["type"] != "string" {
						mayFail = true
					}
				case "query":
					mayFail = true
				}
			}
			for _, m := range pathParam.FindAllStringSubmatch(r.template, -1) {
				if !declared[m[1]] {
					t.Errorf("%s: path parameter %s not declared as required", pattern, m[0])
				}
			}
			if mayFail && responses["422"] == nil {
				t.Errorf("%s: takes input but documents no 422", pattern)
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

	// The document lists exactly the routes of routes.go it covers.
	inCode := servedRoutes(t)
	keyed := 0
	for p := range inCode {
		if strings.Contains(p, " "+publicPrefix+"/") {
			keyed++
		}
	}
	if keyed < 20 || len(inCode)-keyed < 10 {
		t.Fatalf("found only %d keyed and %d keyless routes in routes.go; has its form changed?", keyed, len(inCode)-keyed)
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

// pathParam finds the parameters of a document path: "{name}", alone in
// its segment or not ("{feed_token}.ics").
var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// servedAs maps a document path whose segment a ServeMux wildcard cannot
// express to the routes.go path serving it: a wildcard takes a whole
// segment, so "{feed_token}.ics" is "{feed_file}", whose handler checks the
// suffix.
var servedAs = map[string]string{"/ics/{feed_token}.ics": "/ics/{feed_file}"}

// servedRoutes reads the patterns of routes.go's s.handle calls that the
// document covers (documentedPath), with the package's string constants
// (publicPrefix, bookPrefix, feedPrefix, routes' own p) put in place.
func servedRoutes(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var routes *ast.File
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		if name == "routes.go" {
			routes = f
		}
	}
	// String constants, package-level and local, as far as they are made
	// of literals and other such constants.
	type constant struct {
		name string
		expr ast.Expr
	}
	var pending []constant
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if gd, ok := n.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if i < len(vs.Values) {
							pending = append(pending, constant{id.Name, vs.Values[i]})
						}
					}
				}
			}
			return true
		})
	}
	consts := map[string]string{}
	for progress := true; progress; {
		progress = false
		for _, c := range pending {
			if _, done := consts[c.name]; done {
				continue
			}
			if v, ok := stringValue(c.expr, consts); ok {
				consts[c.name], progress = v, true
			}
		}
	}
	out := map[string]bool{}
	ast.Inspect(routes, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "handle" {
			return true
		}
		pattern, ok := stringValue(call.Args[0], consts)
		if !ok {
			t.Errorf("routes.go %s: cannot read the pattern of s.handle", fset.Position(call.Pos()))
			return true
		}
		if _, path, _ := strings.Cut(pattern, " "); documentedPath(path) {
			out[pattern] = true
		}
		return true
	})
	return out
}

// stringValue evaluates a constant string expression: literals, known
// constants, and their concatenation.
func stringValue(e ast.Expr, consts map[string]string) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[x.Name]
		return s, ok
	case *ast.ParenExpr:
		return stringValue(x.X, consts)
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, okA := stringValue(x.X, consts)
		b, okB := stringValue(x.Y, consts)
		return a + b, okA && okB
	}
	return "", false
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
