// Package apidocs renders the reference page of the public API (served at
// /docs) from its OpenAPI 3.1 document: one self-contained HTML page, with
// no scripts and nothing fetched from elsewhere. It reads the document as
// bytes and knows nothing of the server that serves either.
package apidocs

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strings"
)

// Render returns the reference page of the OpenAPI document doc.
func Render(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	root := mapOf(v)
	if root == nil {
		return nil, fmt.Errorf("openapi document: not a JSON object")
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, buildDocView(root)); err != nil {
		return nil, fmt.Errorf("render docs: %w", err)
	}
	return buf.Bytes(), nil
}

//go:embed docs.html.tmpl
var pageHTML string

var pageTemplate = template.Must(template.New("docs").Funcs(template.FuncMap{
	"lower": strings.ToLower,
	"pad":   func(depth int) int { return 8 + 18*depth },
}).Parse(pageHTML))

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
