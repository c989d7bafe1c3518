package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// readmeCommands returns every curl command of the README's sh blocks, with
// continuation lines joined.
func readmeCommands(t *testing.T) []string {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		joined := strings.ReplaceAll(block[1], "\\\n", " ")
		for _, line := range strings.Split(joined, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "curl ") {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

// TestReadmeTour runs the README's curl examples, as written, against a
// fresh demo server: each must answer 2xx.
func TestReadmeTour(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	cmds := readmeCommands(t)
	if len(cmds) < 15 {
		t.Fatalf("found only %d curl examples in README.md", len(cmds))
	}
	dsn := dbtest.DSN(t, db.SQLite)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	env := &Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Clock: clock.System{}, Ready: ready}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--db", dsn, "--worker=false"}, env)
	}()
	var addr string
	select {
	case addr = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("demo server did not start")
	}
	for _, c := range cmds {
		c = strings.ReplaceAll(c, "127.0.0.1:8080", addr)
		// -f makes curl fail on an HTTP error; -o /dev/null keeps the log short.
		cmd := exec.Command("bash", "-c", strings.Replace(c, "curl ", "curl -f -o /dev/null -w '%{http_code}' ", 1))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("README example failed (%v): %s\n%s", err, c, out.String())
		}
	}
	cancel()
	<-done
}
