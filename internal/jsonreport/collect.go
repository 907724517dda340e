package jsonreport

import (
	"os"
	"runtime/debug"
)

// CollectSooner sets the collector's target to a heap one and a half times what it finds live,
// instead of Go's default of twice, unless GOGC is set. The CLI calls it when it compares with
// a baseline report or merges shards' reports: their runs stay live to the end beside the
// run's own, and the default would let the heap grow by as much again. Compared with a
// million runs, or merging them, the gate then peaks well within 1 GB, for a few more
// collections (docs/performance.md, "A million runs").
func CollectSooner() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
