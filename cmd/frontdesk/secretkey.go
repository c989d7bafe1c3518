package main

import (
	"log/slog"

	"github.com/frontdesk/frontdesk/internal/secrets"
)

// secretBox reads the server key FRONTDESK_SECRET_KEY from the command's
// environment. No key gives a nil Box (webhook secrets are stored as they
// are); a malformed key fails the command, so a typo never quietly stores
// secrets in plaintext or leaves sealed ones unreadable.
func secretBox(env *Env) (*secrets.Box, error) {
	box, err := secrets.ParseKey(env.Getenv(secrets.EnvKey))
	if err != nil {
		return nil, err
	}
	return box, nil
}

// warnNoSecretKey logs, once per process start, that webhook secrets are
// stored unencrypted.
func warnNoSecretKey(log *slog.Logger, box *secrets.Box) {
	if !box.HasKey() {
		log.Warn("webhook secrets are stored unencrypted: set " + secrets.EnvKey + " (32 bytes, base64 or hex, e.g. `openssl rand -base64 32`) to seal them at rest")
	}
}
