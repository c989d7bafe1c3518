package dashboard

// Settings (owners only): notifications, channels, webhooks, team and invitations, API keys, the audit log (issue 22, part 5).

// teamRoutes registers this part's pages and actions.
func (d *Dashboard) teamRoutes() {}
