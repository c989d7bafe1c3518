package csvimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/jsontext"
)

// pipelineEncoder writes a batch-ingest request body straight from the
// rows. Its bytes are exactly those json.Marshal writes for the same body
// built from PipelineRow's maps (keys in sorted order, the same string
// escaping; encode_test.go holds it to that): mapping every row into maps
// and letting encoding/json reflect over them and sort their keys was most
// of the importer's own CPU per row.
type pipelineEncoder struct {
	m *Mapping
	// fields are the row's plain fields, in key order, with the column
	// feeding each (-1: none).
	fields []encodedField
	data   []dataKey // sorted by key
	// head and tail surround the rows: `{"clients":[` … `],"defaults":…}`.
	head, tail []byte
	// sizeHint is the length of the last body, to allocate the next one once.
	sizeHint int
}

type encodedField struct {
	key  string // `"area_code":`
	kind byte   // 's' string, 'i' integer or text, 'd' data, 't' tags
	col  int
}

// dataKey is one custom data key and the columns feeding it, in column
// order (two --map data.K=… name the same key: the last non-blank wins, as
// in PipelineRow).
type dataKey struct {
	key  string // `"Plan":`
	cols []int
}

// newPipelineEncoder prepares the encoding of one job's batches.
func (j *Job) newPipelineEncoder() (*pipelineEncoder, error) {
	m := j.Mapping
	e := &pipelineEncoder{m: m}
	col := func(field string) int {
		if i, ok := m.byField[field]; ok {
			return i
		}
		return -1
	}
	// In the sorted order of the keys, as encoding/json writes a map.
	for _, f := range []struct {
		key, field string
		kind       byte
	}{
		{"area_code", FieldAreaCode, 's'}, {"client_id", FieldClientID, 'i'}, {"company", FieldCompany, 's'},
		{"data", "", 'd'}, {"email", FieldEmail, 's'}, {"external_id", FieldExternalID, 's'},
		{"first_name", FieldFirstName, 's'}, {"last_name", FieldLastName, 's'}, {"phone_number", FieldPhone, 's'},
		{"tags", FieldTags, 't'}, {"timezone", FieldTimezone, 's'},
	} {
		c := -1
		if f.field != "" {
			c = col(f.field)
			if c < 0 {
				continue
			}
		}
		e.fields = append(e.fields, encodedField{key: `"` + f.key + `":`, kind: f.kind, col: c})
	}
	byKey := map[string]*dataKey{}
	for _, c := range m.Columns {
		if c.DataKey == "" {
			continue
		}
		k := byKey[c.DataKey]
		if k == nil {
			k = &dataKey{key: c.DataKey}
			byKey[c.DataKey] = k
		}
		k.cols = append(k.cols, c.Index)
	}
	for _, k := range byKey {
		e.data = append(e.data, *k)
	}
	slices.SortFunc(e.data, func(a, b dataKey) int { return strings.Compare(a.key, b.key) })
	for i := range e.data {
		e.data[i].key = string(appendJSONString(nil, e.data[i].key)) + ":"
	}

	// The options around "clients", in encoding/json's own order: a
	// placeholder marks where the rows go ("all_or_none" sorts before
	// "clients", the other options after it).
	body := j.pipelineOptions()
	body["clients"] = json.RawMessage("0")
	opts, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	before, after, ok := bytes.Cut(opts, []byte(`"clients":0`))
	if !ok {
		return nil, fmt.Errorf("encoding batch options: no place for the rows in %s", opts)
	}
	e.head = append(before, `"clients":[`...)
	e.tail = append([]byte{']'}, after...)
	return e, nil
}

// pipelineOptions is the body of a batch-ingest request but its rows.
func (j *Job) pipelineOptions() map[string]any {
	body := map[string]any{"trigger_automations": j.TriggerAutomations}
	if j.OnDuplicate != "" {
		body["on_duplicate"] = j.OnDuplicate
	}
	if j.DryRun {
		body["dry_run"] = true
	}
	if j.AllOrNone {
		body["all_or_none"] = true
	}
	if j.StageID != 0 {
		body["stage_id"] = j.StageID
	}
	if j.AreaCode != "" {
		body["defaults"] = map[string]any{"area_code": j.AreaCode}
	}
	return body
}

// encode writes the request body of one batch.
func (e *pipelineEncoder) encode(chunk []Record) []byte {
	dst := make([]byte, 0, max(e.sizeHint+e.sizeHint/8, 256))
	dst = append(dst, e.head...)
	for i, rec := range chunk {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = e.appendRow(dst, rec)
	}
	dst = append(dst, e.tail...)
	e.sizeHint = len(dst)
	return dst
}

// appendRow writes one row as PipelineRow builds it: blank cells are left
// out, and so are data and tags when nothing fills them.
func (e *pipelineEncoder) appendRow(dst []byte, rec Record) []byte {
	dst = append(dst, '{')
	empty := len(dst) // nothing written yet while len(dst) == empty
	for _, f := range e.fields {
		switch f.kind {
		case 's', 'i':
			v := rec.Cell(f.col)
			if v == "" {
				continue
			}
			if len(dst) > empty {
				dst = append(dst, ',')
			}
			dst = append(dst, f.key...)
			if f.kind == 'i' {
				if id, err := strconv.ParseInt(v, 10, 64); err == nil { // intOrText
					dst = strconv.AppendInt(dst, id, 10)
					continue
				}
			}
			dst = appendJSONString(dst, v)
		case 't':
			dst = appendTags(dst, len(dst) > empty, f.key, rec.Cell(f.col))
		case 'd':
			dst = e.appendData(dst, len(dst) > empty, rec)
		}
	}
	return append(dst, '}')
}

// appendTags writes `"tags":[{"name":"vip"},…]` for the non-blank parts of a
// list cell (see splitList), after a comma when comma is set; nothing when
// there are no parts.
func appendTags(dst []byte, comma bool, key, v string) []byte {
	open := false
	for v != "" {
		part := v
		if i := strings.IndexAny(v, ",;|"); i >= 0 {
			part, v = v[:i], v[i+1:]
		} else {
			v = ""
		}
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		if open {
			dst = append(dst, ',')
		} else {
			if comma {
				dst = append(dst, ',')
			}
			dst = append(dst, key...)
			dst = append(dst, '[')
			open = true
		}
		dst = append(dst, `{"name":`...)
		dst = appendJSONString(dst, part)
		dst = append(dst, '}')
	}
	if open {
		dst = append(dst, ']')
	}
	return dst
}

// appendData writes `"data":{…}` from the custom data columns, after a
// comma when comma is set; nothing when every one is blank.
func (e *pipelineEncoder) appendData(dst []byte, comma bool, rec Record) []byte {
	open := false
	for _, k := range e.data {
		v := ""
		for i := len(k.cols) - 1; i >= 0 && v == ""; i-- {
			v = rec.Cell(k.cols[i])
		}
		if v == "" {
			continue
		}
		if open {
			dst = append(dst, ',')
		} else {
			if comma {
				dst = append(dst, ',')
			}
			dst = append(dst, `"data":{`...)
			open = true
		}
		dst = append(dst, k.key...)
		dst = appendJSONString(dst, v)
	}
	if open {
		dst = append(dst, '}')
	}
	return dst
}

// appendJSONString writes s as json.Marshal does by default (HTML
// characters escaped).
func appendJSONString(dst []byte, s string) []byte { return jsontext.AppendString(dst, s, true) }
