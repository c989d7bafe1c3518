// Package arch holds the test that keeps the import graph pointing down:
// the areas and the job worker never reach a front door (HTTP API,
// dashboard, MCP, CSV import) or the workspace file format.
package arch
