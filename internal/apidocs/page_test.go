package apidocs_test

import (
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/apidocs"
)

// doc is a small OpenAPI document with one of each thing the page shows.
const doc = `{
  "openapi": "3.1.0",
  "info": {"title": "Test API", "version": "9.1", "summary": "A summary.",
    "description": "Intro with ` + "`code`" + `, **bold**, *italics* and <script>alert(1)</script>.\n\n- one\n- two"},
  "tags": [{"name": "Things", "description": "All the things."}],
  "paths": {
    "/things/{id}": {
      "get": {
        "tags": ["Things"], "operationId": "getThing", "summary": "Get a thing",
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}],
        "responses": {
          "200": {"description": "The thing.", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Thing"},
            "examples": {"plain": {"summary": "A plain thing", "value": {"zeta": 1, "alpha": "a"}}}}}},
          "203": {"description": "The thing as a file.", "content": {"text/calendar": {"schema": {"type": "string"},
            "examples": {"file": {"value": "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"}}}}},
          "404": {"description": "Unknown thing.", "content": {"application/json": {
            "schema": {"allOf": [{"$ref": "#/components/schemas/ErrorEnvelope"},
              {"properties": {"error_code": {"enum": ["NOT_FOUND", "GONE"]}}}]}}}}
        }
      }
    }
  },
  "webhooks": {
    "thing.made": {"post": {"tags": ["Things"], "operationId": "thingMade", "summary": "A thing was made",
      "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
      "responses": {"200": {"description": "Received."}}}}
  },
  "components": {"schemas": {
    "Thing": {"type": "object", "description": "A thing.", "required": ["zeta"],
      "properties": {"zeta": {"type": "integer"}, "alpha": {"type": "string", "x-additive": true}}},
    "ErrorEnvelope": {"type": "object", "properties": {"error_code": {"$ref": "#/components/schemas/ErrorCode"}}},
    "ErrorCode": {"type": "string", "oneOf": [{"const": "NOT_FOUND", "x-status": 404, "description": "Not there."}]}
  }}
}`

func TestRender(t *testing.T) {
	page, err := apidocs.Render([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		"<title>Test API 9.1 — reference</title>",
		"<code>code</code>", "<strong>bold</strong>", "<em>italics</em>", "<li>one</li>",
		"&lt;script&gt;", // descriptions cannot inject markup
		"/things/{id}", "Get a thing", "thing.made", "sent by Frontdesk to your endpoint",
		`href="#schema-Thing"`, "<code>NOT_FOUND</code><code>GONE</code>", "Not there.",
		`class="add">additive`, "≥ 1", "A plain thing",
		"<code>text/calendar</code>", "BEGIN:VCALENDAR\nEND:VCALENDAR\n", // a file's example as it is
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page does not contain %q", want)
		}
	}
	if strings.Contains(html, "<script>") {
		t.Error("a description's markup reached the page")
	}
	// Fields and example keys keep the document's order.
	zeta, alpha := strings.Index(html, `&#34;zeta&#34;: 1`), strings.Index(html, `&#34;alpha&#34;: &#34;a&#34;`)
	if zeta < 0 || alpha < 0 || zeta > alpha {
		t.Errorf("example keys missing or not in document order (zeta at %d, alpha at %d)", zeta, alpha)
	}
}

func TestRenderRefusesBrokenDocuments(t *testing.T) {
	for _, bad := range []string{`{"openapi": `, `[1, 2]`, ``} {
		if _, err := apidocs.Render([]byte(bad)); err == nil {
			t.Errorf("Render(%q) succeeded", bad)
		}
	}
}
