package dashboard

// Inbox: unread conversations, assignment, status, replies through the conversation's channel (issue 22, part 4).

// inboxRoutes registers this part's pages and actions.
func (d *Dashboard) inboxRoutes() {}
