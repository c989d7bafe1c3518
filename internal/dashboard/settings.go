package dashboard

// Settings (owners only): the catalogue — services, professionals with working hours and time off, event types, waiting-list schedules (issue 22, part 5).

// settingsRoutes registers this part's pages and actions.
func (d *Dashboard) settingsRoutes() {}
