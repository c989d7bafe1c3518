package httpapi

// routes maps the whole HTTP surface on one screen.
func (s *Server) routes() {
	// Operations: no key needed.
	s.handle("GET /healthz", s.handleHealth)
	s.handle("GET /readyz", s.handleReady)
	s.mux.Handle("GET /metrics", s.metrics.handler(s.metricsKey))
	if s.dashboard != nil { // the web dashboard (internal/dashboard), off when nil
		s.mux.Handle("/app/", s.dashboard)
	}
	if s.pages != nil { // the patients' booking and manage pages (internal/bookingpage), off when nil
		s.mux.Handle("/book/", s.pagesGate(s.pages))
		s.mux.Handle("/m/", s.pagesGate(s.pages)) // its calendar file is the more specific route below
	}
	s.handle("GET /docs", s.handleDocs)

	const p = publicPrefix
	// Calendar.
	s.handle("GET "+p+"/calendar/services", s.handleListServices)
	s.handle("GET "+p+"/calendar/availability", s.handleAvailability)
	s.handle("GET "+p+"/calendar/availability/slots", s.handleSlots)
	s.handle("POST "+p+"/calendar/events", s.handleBook)

	// Waiting lists.
	s.handle("POST "+p+"/calendar/waitlist/entries", s.handleWaitlistAdd)
	s.handle("POST "+p+"/calendar/waitlist/entries/batch", s.handleWaitlistBatch)
	s.handle("POST "+p+"/calendar/waitlist/entries/remove", s.handleWaitlistRemoveMany)
	s.handle("GET "+p+"/calendar/waitlist/entries", s.handleWaitlistList)
	s.handle("GET "+p+"/calendar/waitlist/entries/{entry_id}", s.handleWaitlistGet)
	s.handle("DELETE "+p+"/calendar/waitlist/entries/{entry_id}", s.handleWaitlistRemove)
	s.handle("GET "+p+"/calendar/waitlist/summary", s.handleWaitlistSummary)

	// Pipelines.
	s.handle("GET "+p+"/leadflow/pipelines", s.handleListPipelines)
	s.handle("GET "+p+"/leadflow/pipelines/{pipeline_id}/stages", s.handleListStages)
	s.handle("GET "+p+"/leadflow/pipelines/{pipeline_id}/input-nodes", s.handleListInputNodes)
	s.handle("GET "+p+"/leadflow/pipelines/{pipeline_id}/clients", s.handleListPipelineClients)
	s.handle("POST "+p+"/leadflow/pipelines/{pipeline_id}/clients/add", s.handleAddClients)
	s.handle("POST "+p+"/leadflow/pipelines/{pipeline_id}/clients/remove", s.handleRemoveClients)
	s.handle("PATCH "+p+"/leadflow/pipelines/{pipeline_id}/clients/{client_id}/move", s.handleMoveClient)
	s.handle("POST "+p+"/leadflow/ingest/{input_node_uuid}/batch", s.handleIngestBatch)
	s.handle("POST "+p+"/leadflow/ingest/{input_node_uuid}", s.handleIngestOne)

	// The OpenAPI document of this surface (no key needed).
	s.handle("GET "+p+"/openapi.json", s.handleOpenAPI)

	// Chat history (read-only).
	s.handle("GET "+p+"/chat/conversations", s.handleListConversations)
	s.handle("GET "+p+"/chat/conversations/{session_id}/messages", s.handleListMessages)

	// AI agents: the Model Context Protocol over the same keys (mcp.go).
	s.mux.Handle("/mcp", s.mcpHandler())

	// A patient's manage link (docs/manage-links.md): no key, the token;
	// authenticate puts the whole prefix through the patients' gate.
	s.handle("GET "+managePrefix+"/{token}", s.handleManageGet)
	s.handle("GET "+managePrefix+"/{token}/slots", s.handleManageSlots)
	s.handle("POST "+managePrefix+"/{token}/confirm", s.handleManageConfirm)
	s.handle("POST "+managePrefix+"/{token}/decline", s.handleManageDecline)
	s.handle("POST "+managePrefix+"/{token}/cancel", s.handleManageCancel)
	s.handle("POST "+managePrefix+"/{token}/reschedule", s.handleManageReschedule)
	s.handle("GET /m/{token}/appointment.ics", s.patientDoor(s.handleManageICS))

	// The patient API (docs/patient-api.md): no key, limited per client address.
	s.handle("GET "+bookPrefix+"/{account_slug}", s.handlePatientPage)
	s.handle("GET "+bookPrefix+"/{account_slug}/slots", s.handlePatientSlots)
	s.handle("POST "+bookPrefix+"/{account_slug}/verification", s.handlePatientCode)
	s.handle("POST "+bookPrefix+"/{account_slug}/appointments", s.handlePatientBook)

	// Provider callbacks (docs/contract.md, Provider callbacks): no key, the provider's signature.
	s.handle("POST /hooks/twilio/{channel_uuid}/status", s.handleTwilioStatus)
	s.handle("POST /hooks/twilio/{channel_uuid}/inbound", s.handleTwilioInbound)
	s.handle("GET /hooks/whatsapp/{channel_uuid}", s.handleMetaVerify)
	s.handle("POST /hooks/whatsapp/{channel_uuid}", s.handleMetaEvent)

	// Professionals' calendar feeds (feeds.go): no key, the link is the credential.
	s.handle("GET "+feedPrefix+"{feed_file}", s.handleFeed)

	// Dashboard side: provisioning and channel writes (off without an admin token).
	if s.adminToken != "" {
		s.handle("PUT /api/v2/admin/workspaces/{slug}", s.adminOnly(s.handleApplyWorkspace))
		s.handle("POST /api/v2/admin/workspaces/{slug}/conversations/{session_id}/messages", s.adminOnly(s.handleAppendMessage))
		s.handle("PATCH /api/v2/admin/workspaces/{slug}/conversations/{session_id}", s.adminOnly(s.handleUpdateConversation))
	}
}
