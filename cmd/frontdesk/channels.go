package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/relay"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// messaging is how a process delivers messages and reads callbacks: one
// set of provider clients behind the worker's Sender and the HTTP hooks.
type messaging struct {
	sender relay.JobSender
	hooks  *relay.Hooks
}

// newMessaging builds the worker's Sender and the providers' callbacks;
// every provider call the worker makes is bounded in time (--send-timeout)
// and in number per channel (--worker-per-receiver).
func newMessaging(env *Env, store *db.DB, log *slog.Logger, box *secrets.Box, publicURL string, reg prometheus.Registerer, wf workerFlags) (messaging, error) {
	sendTimeout := *wf.sendTimeout
	clk := env.Clock
	metrics := relay.NewMetrics(reg)
	providers, err := newProviders(env, log)
	if err != nil {
		return messaging{}, err
	}
	providers.SMTP.Timeout = sendTimeout
	d := &relay.Deliverer{DB: store, Secrets: box, Clock: clk, Providers: providers, PublicURL: publicURL, SendTimeout: sendTimeout,
		Slots: wf.slots()}
	hooks := &relay.Hooks{DB: store, Secrets: box, Clock: clk, Answer: relay.QueueAnswer, Metrics: metrics, Log: log}
	// Replies that act (docs/contract.md, Replies that act), first to act wins: a yes/no
	// answers the client's live seat offer first (its hold is about to
	// expire), then their pending confirmation request, and only then a
	// recent offer that no longer holds a slot ("no longer available").
	hooks.Replies = []relay.ReplyHandler{seatOfferReplies(true), relay.ConfirmationReplies(hooks.Answer), seatOfferReplies(false)}
	return messaging{sender: relay.JobSender{Deliverer: d, Metrics: metrics}, hooks: hooks}, nil
}

// newProviders builds the provider clients. FRONTDESK_SMTP_CA_FILE (PEM)
// adds certificate authorities that SMTP servers' STARTTLS certificates may
// chain to, besides the system's (a clinic's own mail relay).
func newProviders(env *Env, log *slog.Logger) (*channels.Providers, error) {
	p := &channels.Providers{Targets: targets(env), Timeout: 20 * time.Second, Log: log, Now: env.Clock.Now}
	if file := env.Getenv("FRONTDESK_SMTP_CA_FILE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("FRONTDESK_SMTP_CA_FILE: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("FRONTDESK_SMTP_CA_FILE: %s holds no PEM certificate", file)
		}
		p.SMTP.TLSConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return p, nil
}

// targets is the server's outbound policy: FRONTDESK_ALLOW_PRIVATE_TARGETS
// (docs/api-notes.md, "Outbound targets").
func targets(env *Env) outbound.Policy { return outbound.FromEnv(env.Getenv) }

// publicURL reads --public-url, else FRONTDESK_PUBLIC_URL.
func publicURLFrom(flagValue string, env *Env) string {
	if flagValue != "" {
		return flagValue
	}
	return env.Getenv("FRONTDESK_PUBLIC_URL")
}

// cmdChannels is "frontdesk channels test": one real message through one
// channel, printing the provider's answer (never the credentials).
func cmdChannels(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk channels test --account SLUG --channel KEY --to NUMBER|ADDRESS [--body TEXT]\n", "test"); err != nil {
		return err
	}
	f := newFlags("channels test", env)
	slug := f.String("account", "", "account slug")
	key := f.String("channel", "", "channel key (as in the workspace file)")
	to := f.String("to", "", "recipient: an E.164 phone (+34…) or, for an email channel, an address")
	body := f.String("body", channels.TestMessageBody, "message text")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" || *key == "" || *to == "" {
		fmt.Fprintln(env.Stderr, "channels test: --account, --channel and --to are required")
		return errUsage
	}
	box, err := secretBox(env)
	if err != nil {
		return err
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	providers, err := newProviders(env, logger(env))
	if err != nil {
		return err
	}
	ch, res, err := channels.SendTest(ctx, store, box, providers, acct, *key, *to, *body)
	if err != nil && ch.Key == "" { // refused before sending: no such channel, credentials that do not open
		return err
	}
	out := map[string]any{"channel": ch.Key, "type": ch.Type, "provider": ch.Provider, "to": *to}
	if err != nil {
		out["status"], out["error"] = "failed", err.Error()
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(out)
		return fmt.Errorf("the provider refused the message")
	}
	out["status"], out["provider_message_id"] = "sent", res.ProviderID
	if res.Segments > 0 {
		out["segments"] = res.Segments
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// seatOfferReplies hands a client's yes/no to their seat offer (liveOnly:
// only while it still holds a slot).
func seatOfferReplies(liveOnly bool) relay.ReplyHandler {
	return func(ctx context.Context, tx *db.Tx, r relay.Reply, now time.Time) (bool, error) {
		if r.Client == nil {
			return false, nil
		}
		res, err := offers.Reply(ctx, tx, r.Account, r.Client.ID, r.Intent == channels.IntentYes, liveOnly, now)
		if err != nil || !res.Handled {
			return false, err
		}
		return true, relay.QueueAnswer(ctx, tx, r, res.Answer, now)
	}
}
