package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestDemoSecretBox: a demo server without FRONTDESK_SECRET_KEY keeps a key
// of its own beside its SQLite database, made once (0600) and read again on
// the next start, so what it sealed yesterday opens today; PostgreSQL gets
// none, and a damaged key file stops the server instead of sealing anew.
func TestDemoSecretBox(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := t.TempDir()
	dsn := filepath.Join(dir, "demo.db")

	first, err := demoSecretBox(dsn, log)
	if err != nil || !first.HasKey() {
		t.Fatalf("first start: %v %v", first, err)
	}
	info, err := os.Stat(dsn + ".key")
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	sealed, err := first.Seal("whsec_demo")
	if err != nil {
		t.Fatal(err)
	}
	second, err := demoSecretBox("file:"+dsn+"?_pragma=busy_timeout(5000)", log)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := second.Open(sealed); err != nil || got != "whsec_demo" {
		t.Errorf("the next start cannot open what the first sealed: %q %v", got, err)
	}

	if box, err := demoSecretBox("postgres://postgres@127.0.0.1:5432/test", log); err != nil || box.HasKey() {
		t.Errorf("postgres: %v %v", box, err)
	}
	if err := os.WriteFile(dsn+".key", []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := demoSecretBox(dsn, log); err == nil {
		t.Error("a damaged key file was accepted")
	}
}
