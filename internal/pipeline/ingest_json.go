package pipeline

// Ingest: the 200 body written by hand. A 500-row answer through
// encoding/json's reflection cost as much as a statement of the batch;
// AppendJSON writes the same bytes (TestAppendJSONMatchesEncoding holds it
// to encoding/json with HTML escaping off) without reflection for every
// field but the free-form ones (external_id beyond scalars, custom fields).

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/jsontext"
)

// AppendJSON appends the result as JSON, as encoding/json would with HTML
// escaping off (no trailing newline).
func (r *IngestResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"status":`...)
	b = appendString(b, r.Status)
	b = append(b, `,"dry_run":`...)
	b = strconv.AppendBool(b, r.DryRun)
	b = append(b, `,"input_node_uuid":`...)
	b = appendString(b, r.InputNodeUUID)
	b = append(b, `,"pipeline_id":`...)
	b = strconv.AppendInt(b, r.PipelineID, 10)
	b = append(b, `,"stage_id":`...)
	b = strconv.AppendInt(b, r.StageID, 10)
	s := r.Summary
	b = append(b, `,"summary":{"total":`...)
	for i, n := range []int{s.Total, s.Created, s.Updated, s.Skipped, s.Failed, s.PipelineAdded, s.PipelineAlreadyActive, s.PipelineFailed} {
		if i > 0 {
			b = append(b, ',', '"')
			b = append(b, summaryKeys[i]...)
			b = append(b, '"', ':')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	b = append(b, `},"results":`...)
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = r.Results[i].appendJSON(b); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

var summaryKeys = [...]string{"total", "created", "updated", "skipped", "failed", "pipeline_added", "pipeline_already_active", "pipeline_failed"}

func (r *RowResult) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	b = append(b, `,"external_id":`...)
	b, err := appendAny(b, r.ExternalID)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"status":`...)
	b = appendString(b, r.Status)
	b = append(b, `,"client_id":`...)
	b = appendIntPtr(b, r.ClientID)
	b = append(b, `,"matched_by":`...)
	b = appendStringPtr(b, r.MatchedBy)
	b = append(b, `,"errors":`...)
	if r.Errors == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range r.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"field":`...)
			b = appendString(b, e.Field)
			b = append(b, `,"code":`...)
			b = appendString(b, e.Code)
			b = append(b, `,"message":`...)
			b = appendString(b, e.Message)
			b = append(b, `,"existing_client_id":`...)
			b = appendIntPtr(b, e.ExistingClientID)
			b = append(b, `,"conflicting_client_id":`...)
			b = appendIntPtr(b, e.ConflictingClientID)
			b = append(b, `,"duplicate_of_index":`...)
			if e.DuplicateOfIndex == nil {
				b = append(b, "null"...)
			} else {
				b = strconv.AppendInt(b, int64(*e.DuplicateOfIndex), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"pipeline":{"status":`...)
	b = appendString(b, r.Pipeline.Status)
	b = append(b, `,"client_state_id":`...)
	b = appendIntPtr(b, r.Pipeline.ClientStateID)
	b = append(b, `},"existing_client":`...)
	if r.ExistingClient == nil {
		b = append(b, "null"...)
	} else if b, err = r.ExistingClient.appendJSON(b); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func (c *ExistingClient) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, c.ID, 10)
	for _, f := range [...]struct {
		key string
		v   *string
	}{{"name", &c.Name}, {"first_name", &c.FirstName}, {"last_name", &c.LastName}, {"phone", c.Phone}, {"email", c.Email},
		{"company", c.Company}, {"timezone", c.Timezone}} {
		b = append(b, ',', '"')
		b = append(b, f.key...)
		b = append(b, '"', ':')
		b = appendStringPtr(b, f.v)
	}
	b = append(b, `,"data":`...)
	b, err := appendAny(b, c.Data)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"tags":`...)
	if c.Tags == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range c.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendString(b, t.Name)
			b = append(b, `,"color":`...)
			b = appendString(b, t.Color)
			b = append(b, `,"description":`...)
			b = appendStringPtr(b, t.Description)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"created_at":`...)
	b = appendString(b, c.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendString(b, c.UpdatedAt)
	return append(b, '}'), nil
}

func appendStringPtr(b []byte, p *string) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return appendString(b, *p)
}

func appendIntPtr(b []byte, p *int64) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *p, 10)
}

// appendAny writes what a request echoes and custom fields hold without
// reflection (strings, booleans, null, request numbers, objects and lists
// of them) and hands anything else (a stored float64) to encoding/json, as
// response bodies are written (HTML characters as they are).
func appendAny(b []byte, v any) ([]byte, error) { return appendValue(b, v, false) }

// appendValue is appendAny with HTML characters escaped or not: escaped, it
// writes what json.Marshal writes, which is how custom fields are stored.
func appendValue(b []byte, v any, escapeHTML bool) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsontext.AppendString(b, x, escapeHTML), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.Number: // as decoded from a request, so a valid literal
		if x == "" {
			return append(b, '0'), nil
		}
		return append(b, x...), nil
	case map[string]any: // custom fields: keys in order, as encoding/json
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, k, escapeHTML)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k], escapeHTML); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, v := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, v, escapeHTML); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	marshal := jsontext.Marshal
	if escapeHTML {
		marshal = json.Marshal
	}
	enc, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendString quotes s as response bodies do (HTML characters as they are).
func appendString(b []byte, s string) []byte { return jsontext.AppendString(b, s, false) }
