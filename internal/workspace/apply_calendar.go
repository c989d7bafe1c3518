package workspace

import (
	"context"
	"sort"

	"github.com/frontdesk/frontdesk/internal/calendar/bookingrules"
)

func (ap *applier) eventTypes(ctx context.Context) error {
	for _, et := range ap.f.EventTypes {
		var fs fields
		fs.add(et.keys.has("name"), "name", et.Name)
		fs.add(et.keys.has("color"), "color", et.Color)
		fs.add(et.keys.has("active"), "active", boolOr(et.Active, true))
		id, err := ap.upsertFields(ctx, "event_types", "", ap.owned(et.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.EventTypes[et.Key] = id
	}
	return nil
}

func (ap *applier) professionals(ctx context.Context) error {
	for _, p := range ap.f.Professionals {
		hours := map[string][]string{}
		for d, spans := range p.WorkingHours {
			hours[d] = append([]string{}, spans...)
			sort.Strings(hours[d])
		}
		off := p.TimeOff
		if off == nil {
			off = []TimeOffSpec{}
		}
		var fs fields
		fs.add(p.keys.has("name"), "name", p.Name)
		fs.add(p.keys.has("active"), "active", boolOr(p.Active, true))
		fs.addJSON(p.keys.has("working_hours"), "working_hours", hours)
		fs.addJSON(p.keys.has("time_off"), "time_off", off)
		id, err := ap.upsertFields(ctx, "professionals", "", ap.owned(p.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.Professionals[p.Key] = id
	}
	return nil
}

func (ap *applier) services(ctx context.Context) error {
	for _, s := range ap.f.Services {
		dur := s.DefaultDurationMinutes
		if dur == 0 {
			dur = 30
		}
		var fs fields
		fs.add(s.keys.has("name"), "name", s.Name)
		fs.add(s.keys.has("color"), "color", s.Color)
		fs.add(s.keys.has("default_duration_minutes"), "default_duration_minutes", dur)
		fs.add(s.keys.has("active"), "active", boolOr(s.Active, true))
		if s.keys.has("booking_rules") {
			set, _ := bookingrules.Read(s.BookingRules) // Validate refused what does not read
			fs.add(true, "booking_rules", set.Document())
		}
		id, err := ap.upsertFields(ctx, "services", "", ap.owned(s.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.Services[s.Key] = id
		if err := ap.serviceResources(ctx, s, id); err != nil {
			return err
		}
		for _, pk := range s.Professionals {
			pid, err := ap.idOf(ctx, "professionals", ap.res.IDs.Professionals, pk)
			if err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO service_professionals (account_id, service_id, professional_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ap.acct.ID, id, pid); err != nil {
				return err
			}
		}
		for _, ek := range s.EventTypes {
			eid, err := ap.idOf(ctx, "event_types", ap.res.IDs.EventTypes, ek)
			if err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO service_event_types (account_id, service_id, event_type_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ap.acct.ID, id, eid); err != nil {
				return err
			}
		}
	}
	return nil
}
