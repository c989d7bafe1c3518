package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/frontdesk/frontdesk/internal/db"
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

// demoSecretBox is the key of a demo server started without
// FRONTDESK_SECRET_KEY, so that everything that needs a key (manage links
// in messages, sealed secrets) works on a first try: a random key kept in
// a file beside the SQLite database (`<db>.key`, mode 0600), made on the
// first run and read on later ones. A dump of the database alone still
// reveals nothing. On PostgreSQL there is no such file: set the key.
func demoSecretBox(dsn string, log *slog.Logger) (*secrets.Box, error) {
	if db.IsPostgresDSN(dsn) {
		return nil, nil
	}
	path := strings.TrimPrefix(dsn, "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == "" || path == ":memory:" {
		return nil, nil
	}
	path += ".key"
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		raw = []byte(base64.StdEncoding.EncodeToString(key) + "\n")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			return nil, fmt.Errorf("demo key: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("demo key: %w", err)
	}
	box, err := secrets.ParseKey(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("demo key %s: %w", path, err)
	}
	log.Info("demo: secrets are sealed with the key in " + path + "; set " + secrets.EnvKey + " in production")
	return box, nil
}
