package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// MaxHookBytes bounds a provider callback's body: providers send a few
// kilobytes; anything near this is not a provider.
const MaxHookBytes = 1 << 20

// readHook reads a callback body of at most MaxHookBytes.
func readHook(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxHookBytes {
		return nil, errs.New(errs.PayloadTooLarge, "A callback body is at most 1 MiB.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxHookBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errs.New(errs.PayloadTooLarge, "A callback body is at most 1 MiB.")
	}
	return body, err
}

// hookURL is the URL the provider signed: the public base (FRONTDESK_PUBLIC_URL)
// and the request's path and query. Without a public base, the request's
// own Host is the best guess (right when no proxy rewrites it).
func (s *Server) hookURL(r *http.Request) string {
	base := strings.TrimRight(s.publicURL, "/")
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return base + r.URL.RequestURI()
}

// twilioForm reads a Twilio callback: a form-encoded body.
func (s *Server) twilioForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	if s.hooks == nil {
		return nil, errs.New(errs.NotFound, "channel not found")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/x-www-form-urlencoded") {
		return nil, errs.New(errs.ValidationError, "A Twilio callback is form-encoded (Content-Type application/x-www-form-urlencoded).")
	}
	body, err := readHook(w, r)
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errs.New(errs.ValidationError, "The form body is malformed.")
	}
	return form, nil
}

// handleTwilioStatus handles "POST /hooks/twilio/{channel_uuid}/status".
func (s *Server) handleTwilioStatus(w http.ResponseWriter, r *http.Request) error {
	form, err := s.twilioForm(w, r)
	if err != nil {
		return err
	}
	if err := s.hooks.TwilioStatus(r.Context(), r.PathValue("channel_uuid"), s.hookURL(r), form, r.Header.Get("X-Twilio-Signature")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleTwilioInbound handles "POST /hooks/twilio/{channel_uuid}/inbound";
// it answers empty TwiML (Frontdesk replies through the outbox, not inline).
func (s *Server) handleTwilioInbound(w http.ResponseWriter, r *http.Request) error {
	form, err := s.twilioForm(w, r)
	if err != nil {
		return err
	}
	if err := s.hooks.TwilioInbound(r.Context(), r.PathValue("channel_uuid"), s.hookURL(r), form, r.Header.Get("X-Twilio-Signature")); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Response></Response>`)
	return nil
}

// handleMetaVerify handles "GET /hooks/whatsapp/{channel_uuid}": Meta's
// subscription check, answered with hub.challenge as plain text.
func (s *Server) handleMetaVerify(w http.ResponseWriter, r *http.Request) error {
	if s.hooks == nil {
		return errs.New(errs.NotFound, "channel not found")
	}
	challenge, err := s.hooks.MetaVerify(r.Context(), r.PathValue("channel_uuid"), r.URL.Query())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, challenge)
	return nil
}

// handleMetaEvent handles "POST /hooks/whatsapp/{channel_uuid}".
func (s *Server) handleMetaEvent(w http.ResponseWriter, r *http.Request) error {
	if s.hooks == nil {
		return errs.New(errs.NotFound, "channel not found")
	}
	body, err := readHook(w, r)
	if err != nil {
		return err
	}
	if err := s.hooks.MetaEvent(r.Context(), r.PathValue("channel_uuid"), body, r.Header.Get("X-Hub-Signature-256")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "received"})
	return nil
}
