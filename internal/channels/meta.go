package channels

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultMetaBase is the Graph API host of the WhatsApp Cloud API.
const DefaultMetaBase = "https://graph.facebook.com"

// MetaAPIVersion is the Graph API version the channel calls.
const MetaAPIVersion = "v21.0"

// metaRetryable are Graph error codes that mean "slow down" whatever the
// HTTP status they come with: 4 (application request limit), 80007 (WABA
// rate limit), 130429 (throughput), 131056 (pair rate), 131016 (service
// unavailable).
var metaRetryable = map[string]bool{"4": true, "80007": true, "130429": true, "131056": true, "131016": true}

// sendMeta posts to /{version}/{phone_number_id}/messages with Bearer
// access_token: a text, or the template the channel maps the kind to. The
// answer's messages[0].id is the provider id; errors are {error: {message,
// type, code, error_subcode, fbtrace_id}}.
func sendMeta(ctx context.Context, hc *http.Client, ch Channel, m Outgoing) (Result, error) {
	token := ch.Credentials["access_token"]
	base := strings.TrimRight(ch.APIBase, "/")
	if base == "" {
		base = DefaultMetaBase
	}
	to := strings.TrimPrefix(m.To, "+")
	payload := map[string]any{"messaging_product": "whatsapp", "recipient_type": "individual", "to": to}
	if t, ok := ch.Templates[m.Kind]; ok && t.Name != "" {
		lang := t.Language
		if lang == "" {
			lang = "es"
		}
		payload["type"] = "template"
		payload["template"] = map[string]any{
			"name": t.Name, "language": map[string]string{"code": lang},
			"components": []any{map[string]any{"type": "body", "parameters": []any{map[string]string{"type": "text", "text": m.Body}}}},
		}
	} else {
		payload["type"] = "text"
		payload["text"] = map[string]any{"body": m.Body, "preview_url": false}
	}
	b, _ := json.Marshal(payload)
	endpoint := base + "/" + MetaAPIVersion + "/" + url.PathEscape(ch.Credentials["phone_number_id"]) + "/messages"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return Result{}, &Error{Message: "meta: " + err.Error()}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Result{}, transportError("meta", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var e struct {
			Error struct {
				Message string      `json:"message"`
				Code    json.Number `json:"code"`
			} `json:"error"`
		}
		json.Unmarshal(body, &e)
		msg := e.Error.Message
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		code := e.Error.Code.String()
		return Result{}, providerError(ch, "meta", resp.StatusCode, code, msg,
			resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 || metaRetryable[code])
	}
	var ok struct {
		Messages []struct {
			ID string `json:"id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &ok); err != nil || len(ok.Messages) == 0 || ok.Messages[0].ID == "" {
		return Result{}, &Error{Status: resp.StatusCode, Message: "meta: answer without a message id", Retryable: true}
	}
	return Result{ProviderID: ok.Messages[0].ID}, nil
}

// MetaSignature is X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256 of the
// raw body keyed with the app secret.
func MetaSignature(appSecret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// VerifyMeta checks X-Hub-Signature-256 in constant time.
func VerifyMeta(appSecret string, body []byte, header string) bool {
	if appSecret == "" || header == "" {
		return false
	}
	return hmac.Equal([]byte(MetaSignature(appSecret, body)), []byte(header))
}

// VerifyMetaChallenge answers Meta's subscription check: the challenge when
// mode is "subscribe" and the token matches, ok false otherwise.
func VerifyMetaChallenge(ch Channel, q url.Values) (challenge string, ok bool) {
	want := ch.Credentials["verify_token"]
	if q.Get("hub.mode") != "subscribe" || want == "" ||
		!hmac.Equal([]byte(q.Get("hub.verify_token")), []byte(want)) {
		return "", false
	}
	return q.Get("hub.challenge"), true
}

// metaStatus maps Meta's statuses onto the outbox's.
func metaStatus(s string) string {
	switch s {
	case "sent", "delivered", "read", "failed":
		return s
	}
	return ""
}
