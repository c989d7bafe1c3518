package dashboard

// The dashboard's whole surface on one screen: every page (GET) and action
// (POST) with the file that serves it. page and action add the session and,
// for actions, the CSRF check; ownerPage and ownerAction refuse staff.

import (
	"io/fs"
	"net/http"
)

func (d *Dashboard) routes() {
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix(Prefix+"static/", http.FileServerFS(static))
	d.mux.Handle("GET "+Prefix+"static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
	d.mux.HandleFunc("GET "+Prefix+"login", d.loginPage)
	d.mux.HandleFunc("POST "+Prefix+"login", d.login)
	d.mux.HandleFunc("/", d.notFoundPage)

	d.page("GET "+Prefix+"{$}", func(w http.ResponseWriter, r *http.Request, s *session) error {
		http.Redirect(w, r, Prefix+"today", http.StatusSeeOther)
		return nil
	})
	d.action("POST "+Prefix+"logout", d.logout)

	d.ownerPage("GET "+Prefix+"keys", d.keysPage)
	d.ownerAction("POST "+Prefix+"keys", d.createKey)
	d.ownerAction("POST "+Prefix+"keys/revoke", d.revokeKey)

	d.page("GET "+Prefix+"pipelines", d.pipelinesPage)
	d.page("GET "+Prefix+"pipelines/{pipeline_id}", d.boardPage)
	d.action("POST "+Prefix+"pipelines/{pipeline_id}/move", d.moveCard)
	d.page("GET "+Prefix+"pipelines/{pipeline_id}/cards/{card_id}", d.cardPage)
	d.ownerAction("POST "+Prefix+"pipelines/{pipeline_id}/nodes", d.createNode)
	d.ownerAction("POST "+Prefix+"pipelines/{pipeline_id}/nodes/{uuid}/active", d.toggleNode)

	d.page("GET "+Prefix+"waitlists", d.waitlistsPage)
	d.action("POST "+Prefix+"waitlists/entries/{entry_id}/remove", d.removeEntry)
	d.action("POST "+Prefix+"waitlists/entries/{entry_id}/snooze", d.snoozeEntry)
	d.action("POST "+Prefix+"waitlists/entries/{entry_id}/flag", d.flagEntry)
	// Seat offers by hand and "Book now" (offers_page.go, offers_hold.go).
	d.page("GET "+Prefix+"waitlists/offer", d.offerPage)
	d.action("POST "+Prefix+"waitlists/offer", d.offerTime)
	d.page("GET "+Prefix+"waitlists/entries/{entry_id}/book", d.entryBookPage)
	d.action("POST "+Prefix+"offers/{offer_id}/accept", d.acceptOffer)
	d.action("POST "+Prefix+"offers/{offer_id}/release", d.releaseOffer)

	d.page("GET "+Prefix+"calendar", d.calendarPage)
	d.action("POST "+Prefix+"appointments/{appointment_id}/reschedule", d.reschedule)
	d.action("POST "+Prefix+"appointments/{appointment_id}/cancel", d.cancelAppointment)

	d.page("GET "+Prefix+"activity", d.activityPage)

	// Reports, owners and staff (reports_*.go): the page and each table as CSV.
	d.page("GET "+Prefix+"reports", d.reportsPage)
	d.page("GET "+Prefix+"reports/{file}", d.reportCSV)

	// Today, booking from the grid, outcomes and moves (today*.go).
	d.page("GET "+Prefix+"today", d.todayPage)
	d.page("GET "+Prefix+"book", d.bookPage)
	d.action("POST "+Prefix+"book", d.book)
	d.action("POST "+Prefix+"appointments/{appointment_id}/status", d.markStatus)
	d.action("POST "+Prefix+"appointments/{appointment_id}/undo", d.undoStatus)
	d.action("POST "+Prefix+"appointments/{appointment_id}/confirm", d.confirmByPhone)
	d.page("GET "+Prefix+"appointments/{appointment_id}/reschedule", d.reschedulePage)

	// Clients (clients.go, client_page.go).
	d.page("GET "+Prefix+"clients", d.clientsPage)
	d.page("GET "+Prefix+"clients/new", d.newClientPage)
	d.mux.HandleFunc("GET "+Prefix+"clients/suggest", d.suggestClients) // JSON, 401 without a session (clients_suggest.go)
	d.action("POST "+Prefix+"clients", d.createClient)
	d.page("GET "+Prefix+"clients/{client_id}", d.clientPage)
	d.action("POST "+Prefix+"clients/{client_id}", d.saveClient)
	d.action("POST "+Prefix+"clients/{client_id}/tags", d.addTag)
	d.action("POST "+Prefix+"clients/{client_id}/tags/remove", d.removeTag)
	d.action("POST "+Prefix+"clients/{client_id}/waitlist", d.addToWaitlist)
	// A client's data rights, owners only (client_data.go).
	d.page("GET "+Prefix+"clients/{client_id}/export", dataRightsOnly(d, d.exportClient))
	d.page("GET "+Prefix+"clients/{client_id}/erase", dataRightsOnly(d, d.erasePage))
	d.action("POST "+Prefix+"clients/{client_id}/erase", dataRightsOnly(d, d.eraseClient))

	// The inbox (inbox.go).
	d.page("GET "+Prefix+"conversations", d.inboxPage)
	d.page("GET "+Prefix+"conversations/{session_id}", d.conversationPage)
	d.action("POST "+Prefix+"conversations/{session_id}/assign", d.assignConversation)
	d.action("POST "+Prefix+"conversations/{session_id}/status", d.setConversationStatus)
	d.action("POST "+Prefix+"conversations/{session_id}/reply", d.replyToConversation)
	d.page("GET "+Prefix+"conversations/patient/{client_id}", d.patientThreadPage)
	d.action("POST "+Prefix+"conversations/patient/{client_id}/reply", d.replyToPatient)
	d.action("POST "+Prefix+"conversations/patient/{client_id}/resolve", d.resolvePatient)

	// Settings: the catalogue (settings_services.go, settings_professionals.go,
	// settings_event_types.go, settings_resources.go, settings_waitlists.go,
	// settings_booking_rules.go).
	p := Prefix + "settings/"
	d.ownerPage("GET "+p+"services", d.servicesSettings)
	d.ownerAction("POST "+p+"services", d.createService)
	d.ownerPage("GET "+p+"services/{service_id}", d.serviceSettings)
	d.ownerAction("POST "+p+"services/{service_id}", d.saveService)
	d.ownerAction("POST "+p+"services/{service_id}/booking-rules", d.saveServiceBookingRules)
	d.ownerPage("GET "+p+"booking-rules", d.bookingRulesPage)
	d.ownerAction("POST "+p+"booking-rules", d.saveBookingRules)

	d.ownerPage("GET "+p+"professionals", d.professionalsSettings)
	d.ownerAction("POST "+p+"professionals", d.createProfessional)
	d.ownerPage("GET "+p+"professionals/{professional_id}", d.professionalSettings)
	d.ownerAction("POST "+p+"professionals/{professional_id}", d.saveProfessional)
	d.ownerAction("POST "+p+"professionals/{professional_id}/hours", d.saveWorkingHours)
	d.ownerAction("POST "+p+"professionals/{professional_id}/time-off", d.addTimeOff)
	d.ownerAction("POST "+p+"professionals/{professional_id}/time-off/remove", d.removeTimeOff)

	d.ownerPage("GET "+p+"event-types", d.eventTypesSettings)
	d.ownerAction("POST "+p+"event-types", d.createEventType)
	d.ownerAction("POST "+p+"event-types/{event_type_id}", d.saveEventType)

	d.ownerPage("GET "+p+"resources", d.resourcesSettings)
	d.ownerAction("POST "+p+"resources", d.createResource)
	d.ownerAction("POST "+p+"resources/{resource_id}", d.saveResource)

	d.ownerPage("GET "+p+"waitlists", d.waitlistsSettings)
	d.ownerAction("POST "+p+"waitlists/{waitlist_id}", d.saveWaitlistSchedule)

	// Settings: notifications, webhooks, team, audit, preferences, channels (settings_*.go).
	d.ownerPage("GET "+Prefix+"settings", d.settingsIndex)
	d.ownerPage("GET "+Prefix+"settings/{$}", d.settingsIndex)

	d.ownerPage("GET "+Prefix+"settings/notifications", d.notificationsPage)
	d.ownerAction("POST "+Prefix+"settings/notifications", d.saveNotifications)

	d.ownerPage("GET "+Prefix+"settings/webhooks", d.webhooksPage)
	d.ownerAction("POST "+Prefix+"settings/webhooks", d.createWebhook)
	d.ownerPage("GET "+Prefix+"settings/webhooks/{webhook_id}", d.webhookPage)
	d.ownerAction("POST "+Prefix+"settings/webhooks/{webhook_id}/active", d.toggleWebhook)
	d.ownerAction("POST "+Prefix+"settings/webhooks/{webhook_id}/delete", d.deleteWebhook)

	d.ownerPage("GET "+Prefix+"settings/team", d.teamPage)
	d.ownerAction("POST "+Prefix+"settings/team/invitations", d.invite)
	d.ownerAction("POST "+Prefix+"settings/team/invitations/{invitation_id}/withdraw", d.withdrawInvitation)
	d.ownerAction("POST "+Prefix+"settings/team/{user_id}/role", d.changeRole)
	d.ownerAction("POST "+Prefix+"settings/team/{user_id}/active", d.toggleMember)

	d.ownerPage("GET "+Prefix+"settings/audit", d.auditPage)
	// Settings: data retention (settings_retention.go).
	d.ownerPage("GET "+Prefix+"settings/retention", d.retentionPage)
	d.ownerAction("POST "+Prefix+"settings/retention", d.saveRetention)
	// Settings: the inbox's quick replies (settings_quick_replies.go).
	d.ownerPage("GET "+Prefix+"settings/quick-replies", d.quickRepliesPage)
	d.ownerAction("POST "+Prefix+"settings/quick-replies", d.addQuickReply)
	d.ownerAction("POST "+Prefix+"settings/quick-replies/{reply_id}/remove", d.removeQuickReply)

	d.ownerPage("GET "+Prefix+"settings/channels", d.channelsPage)
	d.ownerAction("POST "+Prefix+"settings/channels", d.createChannel)
	d.ownerAction("POST "+Prefix+"settings/channels/{key}", d.updateChannel)
	d.ownerAction("POST "+Prefix+"settings/channels/{key}/test", d.testChannel)

	// Settings: the professionals' calendar feeds (settings_calendar_feeds.go).
	d.ownerPage("GET "+p+"calendar-feeds", d.calendarFeedsPage)
	d.ownerAction("POST "+p+"calendar-feeds/{professional_id}", d.makeCalendarFeed)
	d.ownerAction("POST "+p+"calendar-feeds/{professional_id}/revoke", d.revokeCalendarFeed)

	// Settings: the patients' booking page (settings_booking_page.go).
	d.ownerPage("GET "+p+"booking-page", d.bookingPage)
	d.ownerAction("POST "+p+"booking-page", d.saveBookingPage)

	// Every user's own preferences, owner or staff.
	d.page("GET "+Prefix+"settings/me", d.mePage)
	d.action("POST "+Prefix+"settings/me", d.saveMe)

	// Signed out: the invitation's link.
	d.mux.HandleFunc("GET "+Prefix+"invite/{token}", d.invitePage)
	d.mux.HandleFunc("POST "+Prefix+"invite/{token}", d.acceptInvite)
}
