package csvimport

import (
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/names"
)

// A blank cell is never sent: the contract's merge rules read an absent
// field as "leave the stored value", which is what an empty spreadsheet
// cell means. Values the server must judge (a priority of "soon", a client
// id of "abc") are sent as they are, so the row fails with the server's own
// message instead of a second opinion from here.

// get returns the trimmed cell feeding field, "" when none.
func (m *Mapping) get(rec Record, field string) string {
	i, ok := m.byField[field]
	if !ok {
		return ""
	}
	return rec.Cell(i)
}

// ExternalID is the row's external id as written in the file ("" when the
// file has no such column).
func (m *Mapping) ExternalID(rec Record) string { return m.get(rec, FieldExternalID) }

// PipelineRow builds one batch-ingest row.
func (m *Mapping) PipelineRow(rec Record) map[string]any {
	row := map[string]any{}
	for _, f := range []struct{ field, key string }{
		{FieldExternalID, "external_id"}, {FieldFirstName, "first_name"}, {FieldLastName, "last_name"},
		{FieldPhone, "phone_number"}, {FieldAreaCode, "area_code"}, {FieldEmail, "email"},
		{FieldCompany, "company"}, {FieldTimezone, "timezone"},
	} {
		if v := m.get(rec, f.field); v != "" {
			row[f.key] = v
		}
	}
	if v := m.get(rec, FieldClientID); v != "" {
		row["client_id"] = intOrText(v)
	}
	if v := m.get(rec, FieldTags); v != "" {
		var tags []any
		for _, name := range splitList(v) {
			tags = append(tags, map[string]any{"name": name})
		}
		if len(tags) > 0 {
			row["tags"] = tags
		}
	}
	data := map[string]any{}
	for _, c := range m.Columns {
		if c.DataKey == "" {
			continue
		}
		if v := rec.Cell(c.Index); v != "" {
			data[c.DataKey] = v
		}
	}
	if len(data) > 0 {
		row["data"] = data
	}
	return row
}

// WaitlistRow builds one waiting-list batch row. services are used when the
// row names none (--service).
func (m *Mapping) WaitlistRow(rec Record, services []string) map[string]any {
	row := map[string]any{}
	for _, f := range []string{FieldFirstName, FieldLastName, FieldEmail, FieldNotes, FieldEarliestDate, FieldLatestDate} {
		if v := m.get(rec, f); v != "" {
			row[f] = v
		}
	}
	if p := m.get(rec, FieldPhone); p != "" {
		row["phone"] = withAreaCode(p, m.get(rec, FieldAreaCode))
	}
	list := splitList(m.get(rec, FieldService))
	if len(list) == 0 {
		list = services
	}
	var ids, serviceNames []any
	for _, s := range list {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			ids = append(ids, n)
		} else {
			serviceNames = append(serviceNames, s)
		}
	}
	if len(ids) > 0 {
		row["service_ids"] = ids
	}
	if len(serviceNames) > 0 {
		row["service_names"] = serviceNames
	}
	if v := m.get(rec, FieldPriority); v != "" {
		row["priority"] = priority(v)
	}
	if v := m.get(rec, FieldTimePreference); v != "" {
		row["time_preference"] = timePreference(v)
	}
	if v := m.get(rec, FieldProfessional); v != "" {
		row["preferred_professional_id"] = intOrText(v)
	}
	return row
}

// withAreaCode makes a national number international with the row's
// country calling code ("34" or "+34"); numbers that already carry one
// ("+…", "00…") are left alone. The waiting list has no area_code field, so
// this is the only way a column of country codes can reach it.
func withAreaCode(phone, area string) string {
	area = strings.TrimPrefix(strings.TrimSpace(area), "+")
	if area == "" || strings.HasPrefix(phone, "+") || strings.HasPrefix(phone, "00") {
		return phone
	}
	if _, err := strconv.Atoi(area); err != nil {
		return phone
	}
	return "+" + area + " " + phone
}

// splitList splits a cell holding several values: "vip, gold" or
// "Limpieza dental; Fisioterapia" or "a|b".
func splitList(v string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == '|' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// intOrText sends digits as a JSON integer and anything else as text.
func intOrText(v string) any {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	return v
}

// priorityWords are the names people write instead of 0..3.
var priorityWords = map[string]int{
	"urgent": 0, "urgente": 0,
	"high": 1, "alta": 1, "alto": 1,
	"normal": 2, "medium": 2, "media": 2, "medio": 2,
	"low": 3, "baja": 3, "bajo": 3,
}

func priority(v string) any {
	if n, ok := priorityWords[names.Fold(v)]; ok {
		return n
	}
	return intOrText(v)
}

// timeWords maps Spanish and English spellings to the contract's values.
var timeWords = map[string]string{
	"any": "any", "cualquiera": "any", "indiferente": "any", "todo el dia": "any",
	"morning": "morning", "manana": "morning", "mananas": "morning", "por la manana": "morning",
	"afternoon": "afternoon", "tarde": "afternoon", "tardes": "afternoon", "por la tarde": "afternoon",
	"evening": "evening", "noche": "evening", "noches": "evening", "por la noche": "evening",
}

func timePreference(v string) string {
	if t, ok := timeWords[names.Fold(v)]; ok {
		return t
	}
	return v
}
