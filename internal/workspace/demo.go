package workspace

import _ "embed"

//go:embed demo.yaml
var demo []byte

// DemoSlug is the slug of the built-in demo workspace.
const DemoSlug = "demo"

// DemoKey is the demo workspace's documented, fixed API key.
const DemoKey = "pk_demo_frontdesk"

// Demo returns the built-in demo workspace file: a small clinic with
// services, professionals, a waiting list, a sales pipeline, clients and
// conversations, so every endpoint answers something real on first run.
func Demo() []byte { return demo }
