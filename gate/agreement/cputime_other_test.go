//go:build !unix

package agreement

// cpuTime is not measured here: 0.
func cpuTime() int64 { return 0 }
