package httpapi

import (
	"io"
	"log/slog"
	"os"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
