package httpapi_test

// The document itself: its version, operations and schemas, and that it
// lists exactly the public routes of routes.go and the codes of internal/errs.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
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

// TestOpenAPIDocument checks the document: version, schemas (compiled, which
// also checks them against the 2020-12 metaschema), operations, and that it
// lists exactly the public routes of routes.go and the error codes of
// internal/errs. Its examples are checked by TestOpenAPIExamples.
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
