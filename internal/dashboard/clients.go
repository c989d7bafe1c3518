package dashboard

// Clients: create, the client's whole page, adding to a waiting list (issue 22, part 3).

// clientRoutes registers this part's pages and actions.
func (d *Dashboard) clientRoutes() {}
