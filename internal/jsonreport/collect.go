package jsonreport

import (
	"os"
	"runtime/debug"
)

// SoftMemoryLimit is the heap CollectSooner asks the collector to keep within, unless
// GOMEMLIMIT is set: 768 MiB, so that with the runtime's own memory the process stays within
// the 1 GB a million runs must fit in (docs/performance.md, "A million runs"). It is a soft
// limit: a heap that holds more live stays whole, the collector then taking at most half the
// CPU (the runtime's own cap), and the run slower rather than failed.
const SoftMemoryLimit = 768 << 20

// CollectSooner sets the collector's target to a heap one and a half times what it finds live,
// instead of Go's default of twice, unless GOGC is set, and a soft limit of SoftMemoryLimit.
// The CLI calls it when it compares with a baseline report or merges shards' reports: their
// runs stay live to the end beside the run's own, and the default would let the heap grow by as
// much again. A million runs compared or merged hold about 600 MB live at their peak, which one
// and a half times alone would take past 1 GB of RSS (1.0 GB measured, with the garbage of
// writing the report); the limit has the collector run before the garbage gets there
// (docs/performance.md, "A million runs").
func CollectSooner() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(SoftMemoryLimit)
	}
}
