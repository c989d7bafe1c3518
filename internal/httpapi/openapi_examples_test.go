package httpapi_test

// Every example of the document matches its schema: the examples of
// request and response bodies (`example`, `examples[*].value`), of
// parameters and headers, and the `examples` (and `example`) written on
// schemas themselves. Schemas are compiled by JSON pointer into the
// document (contract_check_test.go), so their $refs into components resolve
// in place. Redocly's lint (.ci/run) checks the body examples too, more
// strictly (undeclared keys count as errors); this test runs with go test
// and also covers schema and parameter examples.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/httpapi"
)

// subschemaKeys are the JSON Schema 2020-12 keywords whose value is a
// schema; subschemaMaps and subschemaLists hold maps and lists of schemas.
var (
	subschemaKeys  = []string{"additionalProperties", "items", "not", "if", "then", "else", "contains", "unevaluatedProperties", "unevaluatedItems", "propertyNames"}
	subschemaMaps  = []string{"properties", "patternProperties", "dependentSchemas", "$defs"}
	subschemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// exampleCheck is one example found in the document.
type exampleCheck struct {
	where     string // JSON pointer of the example
	schemaPtr string // JSON pointer of the schema it must match
	value     any
}

// examples lists every example of the document with the schema it must
// match, in a stable order.
func (c *contract) examples() []exampleCheck {
	var out []exampleCheck
	c.holderExamples(c.doc, "", &out)
	for name := range mapAt(c, "/components/schemas") {
		c.schemaExamples("/components/schemas/"+escapePtr(name), &out)
	}
	slices.SortFunc(out, func(a, b exampleCheck) int { return strings.Compare(a.where, b.where) })
	return out
}

// holderExamples walks everything but schemas and example values for
// objects that carry a schema and examples of it: media types, parameters
// and headers (OpenAPI gives them the same `schema`, `example` and
// `examples` fields). Each schema met is walked for its own examples.
func (c *contract) holderExamples(v any, ptr string, out *[]exampleCheck) {
	switch x := v.(type) {
	case []any:
		for i, item := range x {
			c.holderExamples(item, fmt.Sprintf("%s/%d", ptr, i), out)
		}
	case map[string]any:
		if ptr == "/components/schemas" {
			return // walked as schemas by examples
		}
		if _, ok := x["schema"].(map[string]any); ok {
			schemaPtr := ptr + "/schema"
			if ex, ok := x["example"]; ok {
				*out = append(*out, exampleCheck{ptr + "/example", schemaPtr, ex})
			}
			for name := range mapAt(c, ptr+"/examples") {
				exPtr := c.deref(ptr + "/examples/" + escapePtr(name))
				if value, ok := mapAt(c, exPtr)["value"]; ok {
					*out = append(*out, exampleCheck{exPtr + "/value", schemaPtr, value})
				}
			}
			c.schemaExamples(schemaPtr, out)
		}
		for k, item := range x {
			if k == "schema" || k == "example" || k == "examples" {
				continue
			}
			c.holderExamples(item, ptr+"/"+escapePtr(k), out)
		}
	}
}

// schemaExamples collects the examples written on the schema at ptr and on
// its subschemas (a $ref is walked where it points, as a component).
func (c *contract) schemaExamples(ptr string, out *[]exampleCheck) {
	sch := mapAt(c, ptr)
	if sch == nil {
		return
	}
	if list, ok := sch["examples"].([]any); ok {
		for i, ex := range list {
			*out = append(*out, exampleCheck{fmt.Sprintf("%s/examples/%d", ptr, i), ptr, ex})
		}
	}
	if ex, ok := sch["example"]; ok {
		*out = append(*out, exampleCheck{ptr + "/example", ptr, ex})
	}
	for _, k := range subschemaKeys {
		c.schemaExamples(ptr+"/"+k, out)
	}
	for _, k := range subschemaMaps {
		for name := range mapAt(c, ptr+"/"+k) {
			c.schemaExamples(ptr+"/"+k+"/"+escapePtr(name), out)
		}
	}
	for _, k := range subschemaLists {
		list, _ := sch[k].([]any)
		for i := range list {
			c.schemaExamples(fmt.Sprintf("%s/%s/%d", ptr, k, i), out)
		}
	}
}

// exampleProblems validates every example and returns one line per example
// that does not match its schema, and how many were checked.
func (c *contract) exampleProblems() (int, []string) {
	var problems []string
	checks := c.examples()
	for _, ex := range checks {
		sch, err := c.schema(ex.schemaPtr)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", ex.where, err))
			continue
		}
		if err := sch.Validate(ex.value); err != nil {
			problems = append(problems, fmt.Sprintf("%s does not match %s:\n%s", ex.where, ex.schemaPtr, indentLines(err.Error())))
		}
	}
	return len(checks), problems
}

// TestOpenAPIExamples validates every example of the document against its
// schema.
func TestOpenAPIExamples(t *testing.T) {
	c := mustContract(t)
	n, problems := c.exampleProblems()
	for _, p := range problems {
		t.Error(p)
	}
	kinds := map[string]int{}
	for _, ex := range c.examples() {
		switch {
		case strings.Contains(ex.where, "/parameters/"):
			kinds["parameter"]++
		case strings.Contains(ex.where, "/content/"):
			kinds["body"]++
		default:
			kinds["schema"]++
		}
	}
	// A walk that found nothing would pass; the document has examples of
	// every kind.
	if n < 80 || kinds["parameter"] == 0 || kinds["body"] == 0 || kinds["schema"] == 0 {
		t.Errorf("found only %d examples (%v): has the document's form changed?", n, kinds)
	}
	t.Logf("%d examples checked: %v", n, kinds)
}

// TestOpenAPIExamplesCatchBadOnes bends one example of each kind and
// expects the check to name it.
func TestOpenAPIExamplesCatchBadOnes(t *testing.T) {
	const booked = "/paths/~1api~1v2~1public~1calendar~1events/post/responses/200/content/application~1json/examples/booked/value"
	for _, test := range []struct {
		name, where string
		bend        func(doc map[string]any)
	}{
		{"a body example with an undeclared key", booked, func(doc map[string]any) {
			pointer(doc, booked)["surprise"] = true
		}},
		{"a body example of the wrong type", booked, func(doc map[string]any) {
			pointer(doc, booked+"/data")["id"] = "1"
		}},
		{"an error example with an unknown code", "validation_error/value", func(doc map[string]any) {
			pointer(doc, "/paths/~1api~1v2~1public~1calendar~1events/post/responses/400/content/application~1json/examples/validation_error/value")["error_code"] = "OOPS"
		}},
		{"a schema example", firstOf(t, "/components/schemas/"), nil},
		{"a parameter example", firstOf(t, "/parameters/"), nil},
	} {
		t.Run(test.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
				t.Fatal(err)
			}
			if test.bend != nil {
				test.bend(doc)
			} else {
				spoil(doc, test.where)
			}
			raw, _ := json.Marshal(doc)
			c, err := newContract(raw)
			if err != nil {
				t.Fatal(err)
			}
			_, problems := c.exampleProblems()
			if len(problems) != 1 || !strings.Contains(problems[0], test.where) {
				t.Fatalf("want one problem at %s, got %d:\n%s", test.where, len(problems), strings.Join(problems, "\n"))
			}
		})
	}
}

// firstOf returns the pointer of the document's first example whose
// pointer contains part.
func firstOf(t *testing.T, part string) string {
	for _, ex := range mustContract(t).examples() {
		if strings.Contains(ex.where, part) {
			return ex.where
		}
	}
	t.Fatalf("the document has no example under %s", part)
	return ""
}

// spoil replaces the example at where by a value of another JSON type.
func spoil(doc map[string]any, where string) {
	i := strings.LastIndex(where, "/")
	parent, last := where[:i], where[i+1:]
	bad := func(v any) any {
		if _, ok := v.(string); ok {
			return 12345
		}
		return "not an example of it"
	}
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(parent, "/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			cur = x[part]
		case []any:
			n, _ := strconv.Atoi(part)
			cur = x[n]
		}
	}
	switch x := cur.(type) {
	case map[string]any:
		x[last] = bad(x[last])
	case []any:
		n, _ := strconv.Atoi(last)
		x[n] = bad(x[n])
	}
}

// pointer returns the object at a JSON pointer into doc.
func pointer(doc map[string]any, ptr string) map[string]any {
	cur := doc
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		cur = cur[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")].(map[string]any)
	}
	return cur
}
