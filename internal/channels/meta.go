package channels

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
		return Result{}, &Error{Message: "meta: " + redact(err.Error(), token), Retryable: true, MaybeSent: reachedProvider(err)}
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
		return Result{}, &Error{Status: resp.StatusCode, Code: code, Message: "meta: " + msg,
			Retryable: resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 || metaRetryable[code]}
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

// ParseMetaWebhook reads a POST of the WhatsApp Cloud API: every
// entry[].changes[].value's messages[] and statuses[].
func ParseMetaWebhook(body []byte) ([]Inbound, []StatusUpdate, error) {
	var doc struct {
		Object string `json:"object"`
		Entry  []struct {
			Changes []struct {
				Field string `json:"field"`
				Value struct {
					Metadata struct {
						DisplayPhoneNumber string `json:"display_phone_number"`
						PhoneNumberID      string `json:"phone_number_id"`
					} `json:"metadata"`
					Contacts []struct {
						Profile struct {
							Name string `json:"name"`
						} `json:"profile"`
						WaID string `json:"wa_id"`
					} `json:"contacts"`
					Messages []struct {
						From string `json:"from"`
						ID   string `json:"id"`
						Type string `json:"type"`
						Text struct {
							Body string `json:"body"`
						} `json:"text"`
						Button struct {
							Text string `json:"text"`
						} `json:"button"`
						Interactive struct {
							ButtonReply struct {
								Title string `json:"title"`
							} `json:"button_reply"`
						} `json:"interactive"`
						Image    *metaMedia `json:"image"`
						Audio    *metaMedia `json:"audio"`
						Video    *metaMedia `json:"video"`
						Document *metaMedia `json:"document"`
						Sticker  *metaMedia `json:"sticker"`
					} `json:"messages"`
					Statuses []struct {
						ID     string `json:"id"`
						Status string `json:"status"`
						Errors []struct {
							Code  json.Number `json:"code"`
							Title string      `json:"title"`
						} `json:"errors"`
					} `json:"statuses"`
				} `json:"value"`
			} `json:"changes"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, nil, fmt.Errorf("body is not a WhatsApp webhook: %w", err)
	}
	var ins []Inbound
	var sts []StatusUpdate
	for _, e := range doc.Entry {
		for _, c := range e.Changes {
			v := c.Value
			names := map[string]string{}
			for _, ct := range v.Contacts {
				names[ct.WaID] = ct.Profile.Name
			}
			for _, m := range v.Messages {
				if m.ID == "" || m.From == "" {
					return nil, nil, fmt.Errorf("a message needs id and from")
				}
				in := Inbound{ProviderID: m.ID, PhoneNumberID: v.Metadata.PhoneNumberID, From: "+" + strings.TrimPrefix(m.From, "+"),
					To: v.Metadata.DisplayPhoneNumber, Name: names[m.From]}
				switch m.Type {
				case "text":
					in.Body = m.Text.Body
				case "button":
					in.Body = m.Button.Text
				case "interactive":
					in.Body = m.Interactive.ButtonReply.Title
				}
				for kind, md := range map[string]*metaMedia{"image": m.Image, "audio": m.Audio, "video": m.Video, "document": m.Document, "sticker": m.Sticker} {
					if md != nil {
						in.Media = append(in.Media, Media{Kind: kind, MIME: md.MIME, Filename: md.Filename, Caption: md.Caption})
						if in.Body == "" {
							in.Body = md.Caption
						}
					}
				}
				ins = append(ins, in)
			}
			for _, s := range v.Statuses {
				if s.ID == "" {
					return nil, nil, fmt.Errorf("a status needs id")
				}
				u := StatusUpdate{ProviderID: s.ID, PhoneNumberID: v.Metadata.PhoneNumberID, Status: metaStatus(s.Status)}
				if len(s.Errors) > 0 {
					u.ErrorCode, u.Error = s.Errors[0].Code.String(), s.Errors[0].Title
				}
				sts = append(sts, u)
			}
		}
	}
	return ins, sts, nil
}

type metaMedia struct {
	ID       string `json:"id"`
	MIME     string `json:"mime_type"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
}
