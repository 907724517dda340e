//go:build unix

package agreement

import "syscall"

// cpuTime returns the CPU time, user and system, the process has used, in nanoseconds. On a
// shared machine it measures a change more steadily than the wall clock: other tenants slow
// the clock, not the work.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
