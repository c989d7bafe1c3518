package apidocs

import (
	"encoding/json"
	"html/template"
	"regexp"
	"strings"
)

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
		media, mt := mediaType(mapOf(rm.get("content")))
		sch := mapOf(mt.get("schema"))
		switch codes := errorCodes(sch); {
		case codes != nil:
			rv.ErrorCodes = codes
			rv.Schema = r.link("ErrorEnvelope")
		case media != "" && media != "application/json":
			// A file (text/calendar): its type says more than "string".
			rv.Schema = template.HTML("<code>" + template.HTMLEscapeString(media) + "</code>")
		case sch != nil:
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
		text, ok := em.get("value").(string)
		if ok && strings.Contains(text, "\n") {
			// A file's text (an iCalendar file) is shown as it is.
			text = strings.ReplaceAll(text, "\r\n", "\n")
		} else {
			b, _ := json.MarshalIndent(em.get("value"), "", "  ")
			text = string(b)
		}
		out = append(out, exampleView{Name: name, Summary: str(em.get("summary")), JSON: text})
	}
	return out
}

// mediaType picks the media type a response is shown by: JSON when it has
// it, else its first (a file's).
func mediaType(content *object) (string, *object) {
	if mt := mapOf(content.get("application/json")); mt != nil {
		return "application/json", mt
	}
	keys := content.Keys()
	if len(keys) == 0 {
		return "", nil
	}
	return keys[0], mapOf(content.get(keys[0]))
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
