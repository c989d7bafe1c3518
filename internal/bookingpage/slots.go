package bookingpage

// A week of free slots as the booking and the manage page show them: one
// list per day, in the account's zone, a week at a time with links to the
// week before (never before today) and after.

import (
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

// weekDays is how many days a slot list shows.
const weekDays = 7

// maxWeeksAhead is how far the next-week link goes.
const maxWeeksAhead = 52

// week is a week of slots.
type week struct {
	First, Last time.Time // its first and last day, in the account's zone
	Prev, Next  string    // links to the week before and after; "" none
	Days        []slotDay
	HasMore     bool // the list was cut: more slots than one page shows
}

// slotDay is one day's slots.
type slotDay struct {
	Day   time.Time
	Slots []slotLink
}

// slotLink is one slot: its start, who (when a professional was not
// chosen, the name is not shown: any of them takes it) and where picking
// it leads.
type slotLink struct {
	At   time.Time
	Who  string
	Href string
}

// weekStart is the first day the list shows: from (YYYY-MM-DD) when it is
// today or later, else today, in loc.
func weekStart(from string, now time.Time, loc *time.Location) time.Time {
	y, m, d := now.In(loc).Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if from == "" {
		return today
	}
	day, err := time.ParseInLocation(time.DateOnly, from, loc)
	if err != nil || day.Before(today) {
		return today
	}
	if limit := today.AddDate(0, 0, weekDays*maxWeeksAhead); day.After(limit) {
		return limit
	}
	return day
}

// groupSlots lays a slot list out by day. With anyProfessional, a time
// free with several professionals shows once. link is where a slot leads.
func groupSlots(list calendar.SlotList, loc *time.Location, anyProfessional bool, link func(calendar.OpenSlot) string) []slotDay {
	var days []slotDay
	seen := map[string]bool{}
	for _, s := range list.Slots {
		if anyProfessional {
			if seen[s.StartAt] {
				continue
			}
			seen[s.StartAt] = true
		}
		at := s.StartAtUTC.In(loc)
		y, m, d := at.Date()
		day := time.Date(y, m, d, 0, 0, 0, 0, loc)
		if len(days) == 0 || !days[len(days)-1].Day.Equal(day) {
			days = append(days, slotDay{Day: day})
		}
		sl := slotLink{At: at, Href: link(s)}
		if !anyProfessional {
			sl.Who = s.Professional.Name
		}
		days[len(days)-1].Slots = append(days[len(days)-1].Slots, sl)
	}
	return days
}

// weekOf is the week starting first with its days, and its links made by
// at (a week's first day → its address).
func weekOf(first time.Time, now time.Time, loc *time.Location, days []slotDay, hasMore bool, at func(string) string) week {
	w := week{First: first, Last: first.AddDate(0, 0, weekDays-1), Days: days, HasMore: hasMore}
	if today := weekStart("", now, loc); first.After(today) {
		prev := first.AddDate(0, 0, -weekDays)
		if prev.Before(today) {
			prev = today
		}
		w.Prev = at(prev.Format(time.DateOnly))
	}
	if next := first.AddDate(0, 0, weekDays); !next.After(weekStart("", now, loc).AddDate(0, 0, weekDays*maxWeeksAhead)) {
		w.Next = at(next.Format(time.DateOnly))
	}
	return w
}
