//go:build !unix

package cputime

import "time"

// Process returns the CPU time the process has used so far; this platform does not tell.
func Process() (d time.Duration, ok bool) { return 0, false }
