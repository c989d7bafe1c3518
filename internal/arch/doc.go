// Package arch holds the tests that keep the code's shape: the import graph
// points down (the areas and the job worker never reach a front door — HTTP
// API, dashboard, MCP, CSV import — or the workspace file format), no
// package hides work in init, and the repository stands alone, citing its
// own docs and never the work tracker.
package arch
