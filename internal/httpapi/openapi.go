package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// openapiJSON is the OpenAPI 3.1 document of the public API: the one copy,
// served as is and rendered into /docs. openapi_test.go validates every
// response of the HTTP tests against it, so it cannot drift from the server.
//
//go:embed openapi.json
var openapiJSON []byte

var openapiETag = func() string {
	sum := sha256.Sum256(openapiJSON)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

// OpenAPI returns a copy of the OpenAPI document.
func OpenAPI() []byte { return bytes.Clone(openapiJSON) }

// handleOpenAPI handles "GET /api/v2/public/openapi.json" (no key needed).
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	serveStatic(w, r, "application/json", openapiJSON, openapiGzip(), openapiETag)
	return nil
}

// The document and the page compress about tenfold; both are compressed
// once.
var (
	openapiGzip = sync.OnceValue(func() []byte { return gzipped(openapiJSON) })
	docsGzip    = sync.OnceValue(func() []byte {
		page, _ := docsPage()
		return gzipped(page)
	})
)

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// handleDocs handles "GET /docs": a self-contained HTML reference rendered
// from the document (no scripts, no external assets).
func (s *Server) handleDocs(w http.ResponseWriter, r *http.Request) error {
	page, err := docsPage()
	if err != nil {
		return err
	}
	// The page is self-contained: inline styles only, no scripts, no
	// frames, nothing fetched from elsewhere.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	serveStatic(w, r, "text/html; charset=utf-8", page, docsGzip(), openapiETag)
	return nil
}

// serveStatic serves body (or its gzip form to a client that accepts it)
// with an ETag, answering a matching If-None-Match with 304.
func serveStatic(w http.ResponseWriter, r *http.Request, ctype string, body, gz []byte, etag string) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		body = gz
		etag = strings.TrimSuffix(etag, `"`) + `-gz"`
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.Header().Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// docsPage renders the reference page once.
var docsPage = sync.OnceValues(func() ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(openapiJSON))
	dec.UseNumber()
	doc, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	var buf bytes.Buffer
	if err := docsTemplate.Execute(&buf, buildDocView(mapOf(doc))); err != nil {
		return nil, fmt.Errorf("render docs: %w", err)
	}
	return buf.Bytes(), nil
})

// object is a JSON object that keeps its keys in document order, so the
// page lists fields and examples in the order the document gives them.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) any {
	if o == nil {
		return nil
	}
	return o.vals[k]
}

func (o *object) has(k string) bool {
	if o == nil {
		return false
	}
	_, ok := o.vals[k]
	return ok
}

func (o *object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// MarshalJSON writes the keys in document order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeOrdered decodes one JSON value, objects as *object.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// The view model of the reference page.
type (
	docView struct {
		Title, Version, Summary string
		Description             template.HTML
		Tags                    []tagView
		ErrorCodes              []errorCodeView
		Schemas                 []schemaView
	}
	tagView struct {
		Name, Anchor string
		Description  template.HTML
		Ops          []opView
	}
	opView struct {
		Anchor, Method, Path, Summary string
		Description                   template.HTML
		Public, Webhook, Additive     bool
		Params                        []paramView
		Body                          *bodyView
		Responses                     []respView
	}
	paramView struct {
		Name, In, Type, Constraints string
		Required, Additive          bool
		Description                 template.HTML
	}
	bodyView struct {
		Required    bool
		Description template.HTML
		Schema      template.HTML
		Fields      []fieldView
		Examples    []exampleView
	}
	respView struct {
		Status      string
		Description template.HTML
		Schema      template.HTML
		ErrorCodes  []string
		Fields      []fieldView
		Headers     []string
		Examples    []exampleView
	}
	fieldView struct {
		Depth              int
		Name, Constraints  string
		Type               template.HTML
		Required, Additive bool
		Description        template.HTML
	}
	exampleView struct {
		Name, Summary, JSON string
	}
	schemaView struct {
		Name, Anchor string
		Type         template.HTML
		Description  template.HTML
		Fields       []fieldView
	}
	errorCodeView struct {
		Code        string
		Status      string
		Description template.HTML
	}
)

func buildDocView(doc *object) docView {
	info := mapOf(doc.get("info"))
	d := docView{
		Title:       str(info.get("title")),
		Version:     str(info.get("version")),
		Summary:     str(info.get("summary")),
		Description: markdown(str(info.get("description"))),
	}
	r := &renderer{doc: doc}
	tagIndex := map[string]int{}
	for _, t := range listOf(doc.get("tags")) {
		tm := mapOf(t)
		tagIndex[str(tm.get("name"))] = len(d.Tags)
		d.Tags = append(d.Tags, tagView{Name: str(tm.get("name")), Anchor: "tag-" + slug(str(tm.get("name"))), Description: markdown(str(tm.get("description")))})
	}
	// Paths, then webhooks (OpenAPI 3.1: requests the API sends to the
	// account's endpoints), grouped by their first tag.
	for _, section := range []string{"paths", "webhooks"} {
		items := mapOf(doc.get(section))
		for _, path := range items.Keys() {
			item := mapOf(items.get(path))
			for _, method := range item.Keys() {
				op := mapOf(item.get(method))
				if op == nil || !httpMethod[method] {
					continue
				}
				tag := "Other"
				if tags := listOf(op.get("tags")); len(tags) > 0 {
					tag = str(tags[0])
				}
				idx, ok := tagIndex[tag]
				if !ok {
					idx = len(d.Tags)
					tagIndex[tag] = idx
					d.Tags = append(d.Tags, tagView{Name: tag, Anchor: "tag-" + slug(tag)})
				}
				v := r.op(method, path, op)
				if section == "webhooks" {
					v.Webhook, v.Public = true, false
				}
				d.Tags[idx].Ops = append(d.Tags[idx].Ops, v)
			}
		}
	}
	schemas := mapOf(mapOf(doc.get("components")).get("schemas"))
	names := append([]string(nil), schemas.Keys()...)
	sort.Strings(names)
	for _, name := range names {
		sch := mapOf(schemas.get(name))
		if name == "ErrorCode" {
			for _, c := range listOf(sch.get("oneOf")) {
				cm := mapOf(c)
				d.ErrorCodes = append(d.ErrorCodes, errorCodeView{Code: str(cm.get("const")), Status: fmt.Sprint(cm.get("x-status")),
					Description: markdown(str(cm.get("description")))})
			}
		}
		d.Schemas = append(d.Schemas, schemaView{Name: name, Anchor: "schema-" + name, Type: r.typeOf(sch),
			Description: markdown(str(sch.get("description"))), Fields: r.fields(sch, 0, "")})
	}
	return d
}

var httpMethod = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "patch": true, "head": true, "options": true}

// renderer turns schemas into field tables; it resolves $refs against doc.
type renderer struct{ doc *object }

// resolve follows local $refs ("#/components/...").
func (r *renderer) resolve(m *object) *object {
	for i := 0; i < 8 && m != nil; i++ {
		ref, ok := m.get("$ref").(string)
		if !ok {
			return m
		}
		var cur any = r.doc
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			cur = mapOf(cur).get(part)
		}
		m = mapOf(cur)
	}
	return m
}

func (r *renderer) op(method, path string, op *object) opView {
	v := opView{
		Anchor:      "op-" + str(op.get("operationId")),
		Method:      strings.ToUpper(method),
		Path:        path,
		Summary:     str(op.get("summary")),
		Description: markdown(str(op.get("description"))),
	}
	if sec, ok := op.get("security").([]any); ok && len(sec) == 0 {
		v.Public = true
	}
	v.Additive = op.get("x-additive") == true
	for _, p := range listOf(op.get("parameters")) {
		pm := r.resolve(mapOf(p))
		sch := mapOf(pm.get("schema"))
		req, _ := pm.get("required").(bool)
		v.Params = append(v.Params, paramView{Name: str(pm.get("name")), In: str(pm.get("in")), Type: plainType(r, sch),
			Constraints: constraints(sch), Required: req, Additive: pm.get("x-additive") == true, Description: markdown(str(pm.get("description")))})
	}
	if rb := r.resolve(mapOf(op.get("requestBody"))); rb != nil {
		mt := mapOf(mapOf(rb.get("content")).get("application/json"))
		sch := mapOf(mt.get("schema"))
		req, _ := rb.get("required").(bool)
		desc := str(rb.get("description"))
		if desc == "" {
			desc = str(r.resolve(sch).get("description"))
		}
		v.Body = &bodyView{Required: req, Description: markdown(desc), Schema: r.typeOf(sch),
			Fields: r.fields(r.resolve(sch), 0, ""), Examples: examples(mt)}
	}
	resps := mapOf(op.get("responses"))
	for _, status := range resps.Keys() {
		rm := r.resolve(mapOf(resps.get(status)))
		rv := respView{Status: status, Description: markdown(str(rm.get("description"))), Headers: mapOf(rm.get("headers")).Keys()}
		mt := mapOf(mapOf(rm.get("content")).get("application/json"))
		sch := mapOf(mt.get("schema"))
		if codes := errorCodes(sch); codes != nil {
			rv.ErrorCodes = codes
			rv.Schema = r.link("ErrorEnvelope")
		} else if sch != nil {
			rv.Schema = r.typeOf(sch)
			if strings.HasPrefix(status, "2") {
				rv.Fields = r.fields(r.resolve(sch), 0, "")
			}
		}
		rv.Examples = examples(mt)
		v.Responses = append(v.Responses, rv)
	}
	return v
}

// errorCodes reads the error_code restriction of an error response schema
// (allOf [ErrorEnvelope, {error_code: enum|const}, ...]).
func errorCodes(sch *object) []string {
	all := listOf(sch.get("allOf"))
	if len(all) < 2 || str(mapOf(all[0]).get("$ref")) != "#/components/schemas/ErrorEnvelope" {
		return nil
	}
	ec := mapOf(mapOf(mapOf(all[1]).get("properties")).get("error_code"))
	if c, ok := ec.get("const").(string); ok {
		return []string{c}
	}
	var out []string
	for _, c := range listOf(ec.get("enum")) {
		out = append(out, str(c))
	}
	return out
}

func examples(mt *object) []exampleView {
	var out []exampleView
	exs := mapOf(mt.get("examples"))
	for _, name := range exs.Keys() {
		em := mapOf(exs.get(name))
		b, _ := json.MarshalIndent(em.get("value"), "", "  ")
		out = append(out, exampleView{Name: name, Summary: str(em.get("summary")), JSON: string(b)})
	}
	return out
}

// fields lists an object's properties, expanding inline objects and arrays
// of inline objects; referenced schemas are linked, not expanded.
func (r *renderer) fields(sch *object, depth int, prefix string) []fieldView {
	if sch == nil || depth > 6 {
		return nil
	}
	if all := listOf(sch.get("allOf")); len(all) > 0 {
		var out []fieldView
		for _, part := range all {
			pm := mapOf(part)
			if !pm.has("$ref") && !pm.has("type") {
				continue // a restriction (required, if/then), not new fields
			}
			out = append(out, r.fields(r.resolve(pm), depth, prefix)...)
		}
		return out
	}
	props := mapOf(sch.get("properties"))
	required := map[string]bool{}
	for _, n := range listOf(sch.get("required")) {
		required[str(n)] = true
	}
	var out []fieldView
	for _, name := range props.Keys() {
		p := mapOf(props.get(name))
		out = append(out, fieldView{Depth: depth, Name: prefix + name, Type: r.typeOf(p), Required: required[name],
			Additive: p.get("x-additive") == true, Constraints: constraints(p), Description: markdown(str(p.get("description")))})
		switch items := mapOf(p.get("items")); {
		case p.has("$ref"):
		case p.has("properties"):
			out = append(out, r.fields(p, depth+1, prefix+name+".")...)
		case items.has("properties"):
			out = append(out, r.fields(items, depth+1, prefix+name+"[].")...)
		}
	}
	return out
}

func (r *renderer) link(name string) template.HTML {
	n := template.HTMLEscapeString(name)
	return template.HTML(`<a href="#schema-` + n + `">` + n + `</a>`)
}

// typeOf renders a schema's type; schema names link to the Schemas section.
func (r *renderer) typeOf(sch *object) template.HTML {
	if sch == nil {
		return "any"
	}
	if ref, ok := sch.get("$ref").(string); ok {
		return r.link(ref[strings.LastIndex(ref, "/")+1:])
	}
	if one := listOf(sch.get("oneOf")); len(one) > 0 && !sch.has("type") {
		parts := make([]string, 0, len(one))
		for _, o := range one {
			parts = append(parts, string(r.typeOf(mapOf(o))))
		}
		return template.HTML(strings.Join(parts, " | "))
	}
	if all := listOf(sch.get("allOf")); len(all) > 0 {
		return r.typeOf(mapOf(all[0]))
	}
	if c, ok := sch.vals["const"]; ok {
		b, _ := json.Marshal(c)
		return template.HTML("<code>" + template.HTMLEscapeString(string(b)) + "</code>")
	}
	var types []string
	switch t := sch.get("type").(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, str(x))
		}
	}
	if len(types) == 0 {
		return "any"
	}
	for i, t := range types {
		switch t {
		case "array":
			types[i] = "array of " + string(r.typeOf(mapOf(sch.get("items"))))
		case "string":
			if f := str(sch.get("format")); f != "" {
				types[i] = "string (" + template.HTMLEscapeString(f) + ")"
			}
		}
	}
	out := strings.Join(types, " | ")
	if enum := listOf(sch.get("enum")); len(enum) > 0 {
		vals := make([]string, 0, len(enum))
		for _, e := range enum {
			if e == nil {
				continue
			}
			b, _ := json.Marshal(e)
			vals = append(vals, "<code>"+template.HTMLEscapeString(string(b))+"</code>")
		}
		out += ": " + strings.Join(vals, ", ")
	}
	return template.HTML(out)
}

func plainType(r *renderer, sch *object) string {
	return tagPattern.ReplaceAllString(string(r.typeOf(sch)), "")
}

var tagPattern = regexp.MustCompile(`<[^>]+>`)

// constraints summarises bounds and defaults.
func constraints(sch *object) string {
	if sch == nil {
		return ""
	}
	var parts []string
	for _, c := range []struct{ key, label string }{
		{"minimum", "≥"}, {"maximum", "≤"}, {"minLength", "min length"}, {"maxLength", "max length"},
		{"minItems", "min items"}, {"maxItems", "max items"}, {"default", "default"},
	} {
		if sch.has(c.key) {
			b, _ := json.Marshal(sch.get(c.key))
			parts = append(parts, c.label+" "+string(b))
		}
	}
	if c := constraints(mapOf(sch.get("items"))); c != "" {
		parts = append(parts, "items "+c)
	}
	return strings.Join(parts, ", ")
}

// markdown renders the small Markdown subset the document's descriptions
// use: paragraphs, "- " and "1. " lists, `code`, **bold** and *italics*.
// Text is escaped first, so a description cannot inject markup.
func markdown(src string) template.HTML {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(src), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if !listItem.MatchString(lines[0]) {
			b.WriteString("<p>" + inline(strings.Join(lines, " ")) + "</p>")
			continue
		}
		tag := "ul"
		if ordered.MatchString(lines[0]) {
			tag = "ol"
		}
		b.WriteString("<" + tag + ">")
		for _, l := range lines {
			b.WriteString("<li>" + inline(listItem.ReplaceAllString(l, "")) + "</li>")
		}
		b.WriteString("</" + tag + ">")
	}
	return template.HTML(b.String())
}

var (
	listItem = regexp.MustCompile(`^\s*(?:-|[0-9]+\.)\s+`)
	ordered  = regexp.MustCompile(`^\s*[0-9]+\.\s+`)
	bold     = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	italic   = regexp.MustCompile(`\*([^*\s][^*]*)\*`)
)

// inline renders code spans, and bold and italics outside them.
func inline(s string) string {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		part = template.HTMLEscapeString(part)
		if i%2 == 1 {
			b.WriteString("<code>" + part + "</code>")
			continue
		}
		part = bold.ReplaceAllString(part, "<strong>$1</strong>")
		b.WriteString(italic.ReplaceAllString(part, "<em>$1</em>"))
	}
	return b.String()
}

func mapOf(v any) *object { o, _ := v.(*object); return o }
func listOf(v any) []any  { l, _ := v.([]any); return l }
func str(v any) string    { s, _ := v.(string); return s }

func slug(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

//go:embed docs/docs.html.tmpl
var docsHTML string

var docsTemplate = template.Must(template.New("docs").Funcs(template.FuncMap{
	"lower": strings.ToLower,
	"pad":   func(depth int) int { return 8 + 18*depth },
}).Parse(docsHTML))
