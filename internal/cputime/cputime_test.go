package cputime

import (
	"runtime"
	"testing"
	"time"
)

// Spinning for 50 ms of wall time on one goroutine uses between 1 ms and the wall time
// elapsed times the processors of CPU (more than 0: the clock moves; not more than the
// machine could have given).
func TestProcessCountsWork(t *testing.T) {
	start, ok := Process()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
			t.Fatal("no CPU time on a unix platform")
		}
		t.Skip("this platform does not tell the CPU time")
	}
	// counted work, not a spin until the wall clock moves: on a busy machine a spin of 50 ms
	// of wall time may get almost no CPU, while this work needs its CPU time however long it
	// waits for it (tens of milliseconds at any clock rate)
	wall := time.Now()
	x := uint64(1)
	for i := range uint64(100_000_000) {
		x = x*6364136223846793005 + i
	}
	end, _ := Process()
	used, elapsed := end-start, time.Since(wall)
	if used <= 0 || used > elapsed*time.Duration(runtime.NumCPU())+10*time.Millisecond {
		t.Errorf("100,000,000 steps (%d) in %v of wall time: counted %v of CPU", x, elapsed, used)
	}
}
