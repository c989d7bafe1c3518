package pipeline

import (
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/nyaruka/phonenumbers"
)

// Ingest, phase 3: merge a matched client's stored values with the row
// (rule 5), or prepare a new client.

// merge applies rule 5 to a matched client; false when the row fails.
func (b *batch) merge(i int, r Row, c contact.Client) bool {
	m := contact.New{FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone, Email: c.Email, Company: c.Company, Timezone: c.Timezone}
	changed := false
	set := func(dst *string, v string) {
		if v != "" && v != *dst {
			*dst, changed = v, true
		}
	}
	set(&m.FirstName, r.FirstName)
	set(&m.LastName, r.LastName)
	set(&m.Email, r.Email)
	set(&m.Company, r.Company)
	set(&m.Timezone, r.Timezone) // inferred zones never apply to existing clients
	data, dataChanged, encoded := mergeData(c.Data, b.req.Defaults.Data, r.Data)
	if len(encoded) >= maxDataBytes {
		b.fail(i, rowErr("data", CodeInvalidFormat, "the merged custom fields would reach 16 KB"))
		return false
	}
	m.Data, m.DataJSON = data, encoded
	b.merged[i] = m
	b.changed[i] = changed || dataChanged
	b.tags[i] = append(append([]Tag{}, b.req.Defaults.Tags...), r.Tags...)
	return true
}

// create prepares a new client; false when the row fails.
func (b *batch) create(i int, r Row) bool {
	data, _, encoded := mergeData(nil, b.req.Defaults.Data, r.Data)
	if len(encoded) >= maxDataBytes {
		b.fail(i, rowErr("data", CodeInvalidFormat, "the custom fields would reach 16 KB"))
		return false
	}
	tz := r.Timezone
	if tz == "" {
		tz = b.req.Defaults.Timezone
	}
	if tz == "" {
		tz = zoneOf(r.Phone)
	}
	b.merged[i] = contact.New{FirstName: r.FirstName, LastName: r.LastName, Phone: r.Phone, Email: r.Email, Company: r.Company, Timezone: tz, Data: data, DataJSON: encoded}
	if b.node.leadValue > 0 { // a new client has no lead value: it takes the node's
		v := b.node.leadValue
		b.merged[i].LeadValue = &v
	}
	b.tags[i] = append(append([]Tag{}, b.req.Defaults.Tags...), r.Tags...)
	return true
}

// zoneOf infers a client's zone from the phone when its country has one.
func zoneOf(n phone.Number) string {
	if n.IsZero() {
		return ""
	}
	zones, err := phonenumbers.GetTimezonesForPrefix(n.E164())
	if err != nil || len(zones) != 1 || !contact.ValidZone(zones[0]) {
		return ""
	}
	return zones[0]
}
