package dashboard

// Today: the day's grid per professional, the week, booking from a free slot (issue 22, part 1-2).

// todayRoutes registers this part's pages and actions.
func (d *Dashboard) todayRoutes() {}
