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
	wall := time.Now()
	x := 0
	for time.Since(wall) < 50*time.Millisecond {
		x++
	}
	end, _ := Process()
	used, elapsed := end-start, time.Since(wall)
	if used < time.Millisecond || used > elapsed*time.Duration(runtime.NumCPU())+10*time.Millisecond {
		t.Errorf("spun %v of wall time (%d loops), counted %v of CPU", elapsed, x, used)
	}
}
