package channels

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// DefaultTwilioBase is Twilio's REST API.
const DefaultTwilioBase = "https://api.twilio.com"

// twilioAddress writes a number as Twilio wants it: WhatsApp numbers carry
// the "whatsapp:" scheme in To and From.
func twilioAddress(ch Channel, number string) string {
	if ch.Type == TypeWhatsApp && !strings.HasPrefix(number, "whatsapp:") {
		return "whatsapp:" + number
	}
	return number
}

// sendTwilio creates a Message resource:
// POST {base}/2010-04-01/Accounts/{sid}/Messages.json, form To, From, Body,
// StatusCallback, HTTP Basic sid:token. 201 answers the resource ({sid,
// num_segments, …}); errors are {code, message, more_info, status}.
func sendTwilio(ctx context.Context, hc *http.Client, ch Channel, m Outgoing) (Result, error) {
	sid, token := ch.Credentials["account_sid"], ch.Credentials["auth_token"]
	base := strings.TrimRight(ch.APIBase, "/")
	if base == "" {
		base = DefaultTwilioBase
	}
	form := url.Values{}
	form.Set("To", twilioAddress(ch, m.To))
	form.Set("From", twilioAddress(ch, ch.From))
	form.Set("Body", m.Body)
	if m.StatusCallback != "" {
		form.Set("StatusCallback", m.StatusCallback)
	}
	endpoint := base + "/2010-04-01/Accounts/" + url.PathEscape(sid) + "/Messages.json"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Result{}, &Error{Message: "twilio: " + err.Error()}
	}
	req.SetBasicAuth(sid, token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Result{}, &Error{Message: "twilio: " + redact(err.Error(), token), Retryable: true, MaybeSent: reachedProvider(err)}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var e struct {
			Code    json.Number `json:"code"`
			Message string      `json:"message"`
		}
		json.Unmarshal(body, &e)
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return Result{}, &Error{Status: resp.StatusCode, Code: e.Code.String(), Message: "twilio: " + e.Message,
			Retryable: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500}
	}
	var ok struct {
		SID         string `json:"sid"`
		NumSegments string `json:"num_segments"`
	}
	if err := json.Unmarshal(body, &ok); err != nil || ok.SID == "" {
		return Result{}, &Error{Status: resp.StatusCode, Message: "twilio: answer without a message sid", Retryable: true}
	}
	res := Result{ProviderID: ok.SID}
	if ch.Type == TypeSMS {
		res.Segments = Segments(m.Body)
		if n, err := strconv.Atoi(ok.NumSegments); err == nil && n > 0 {
			res.Segments = n
		}
	}
	return res, nil
}

func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// TwilioSignature computes X-Twilio-Signature: base64 of HMAC-SHA1 keyed
// with the auth token over the full request URL followed by every POST
// parameter's name and value, names sorted.
func TwilioSignature(authToken, fullURL string, form url.Values) string {
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	mac := hmac.New(sha1.New, []byte(authToken))
	io.WriteString(mac, fullURL)
	for _, k := range keys {
		vals := append([]string(nil), form[k]...)
		sort.Strings(vals)
		for _, v := range vals {
			io.WriteString(mac, k)
			io.WriteString(mac, v)
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// VerifyTwilio reports whether signature is the one Twilio computes for the
// request, in constant time.
func VerifyTwilio(authToken, fullURL string, form url.Values, signature string) bool {
	if authToken == "" || signature == "" {
		return false
	}
	want := TwilioSignature(authToken, fullURL, form)
	return hmac.Equal([]byte(want), []byte(signature))
}

// StatusUpdate is a provider's report on a message it accepted.
type StatusUpdate struct {
	ProviderID    string
	PhoneNumberID string // Meta: the business number the report is about
	Status        string // sent, delivered, read, failed (our vocabulary)
	ErrorCode     string
	Error         string
}

// Media is an inbound attachment's metadata.
type Media struct {
	Kind     string `json:"kind"`
	MIME     string `json:"mime"`
	URL      string `json:"url,omitempty"`
	Filename string `json:"filename,omitempty"`
	Caption  string `json:"caption,omitempty"`
}

// Inbound is a message a patient sent to a channel's number.
type Inbound struct {
	ProviderID    string
	PhoneNumberID string // Meta: the business number that received it
	From          string // as the provider wrote it (E.164, or Meta's wa_id digits)
	To            string
	Body          string
	Name          string // the sender's profile name, when the provider knows it
	Media         []Media
}

// twilioStatus maps Twilio's MessageStatus onto the outbox's statuses;
// "" means a state that changes nothing here (queued, accepted, sending…).
func twilioStatus(s string) string {
	switch s {
	case "sent":
		return "sent"
	case "delivered":
		return "delivered"
	case "read":
		return "read"
	case "undelivered", "failed":
		return "failed"
	}
	return ""
}

// ParseTwilioStatus reads a status callback's form.
func ParseTwilioStatus(form url.Values) (StatusUpdate, error) {
	u := StatusUpdate{ProviderID: form.Get("MessageSid"), ErrorCode: form.Get("ErrorCode")}
	if u.ProviderID == "" {
		u.ProviderID = form.Get("SmsSid")
	}
	raw := form.Get("MessageStatus")
	if raw == "" {
		raw = form.Get("SmsStatus")
	}
	if u.ProviderID == "" {
		return u, fmt.Errorf("MessageSid is required")
	}
	if raw == "" {
		return u, fmt.Errorf("MessageStatus is required")
	}
	u.Status = twilioStatus(raw)
	if u.Status == "failed" && u.ErrorCode != "" {
		u.Error = "twilio error " + u.ErrorCode
	}
	return u, nil
}

// ParseTwilioInbound reads an incoming message's form.
func ParseTwilioInbound(form url.Values) (Inbound, error) {
	in := Inbound{
		ProviderID: form.Get("MessageSid"),
		From:       strings.TrimPrefix(form.Get("From"), "whatsapp:"),
		To:         strings.TrimPrefix(form.Get("To"), "whatsapp:"),
		Body:       form.Get("Body"),
		Name:       form.Get("ProfileName"),
	}
	if in.ProviderID == "" {
		return in, fmt.Errorf("MessageSid is required")
	}
	if in.From == "" {
		return in, fmt.Errorf("From is required")
	}
	n, _ := strconv.Atoi(form.Get("NumMedia"))
	if n < 0 || n > 10 {
		return in, fmt.Errorf("NumMedia must be 0..10")
	}
	for i := 0; i < n; i++ {
		mime := form.Get(fmt.Sprintf("MediaContentType%d", i))
		in.Media = append(in.Media, Media{Kind: mediaKind(mime), MIME: mime, URL: form.Get(fmt.Sprintf("MediaUrl%d", i))})
	}
	return in, nil
}

func mediaKind(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	}
	return "document"
}
