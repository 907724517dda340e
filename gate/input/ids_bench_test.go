package input

import (
	"fmt"
	"testing"
)

// BenchmarkIDs adds the ids of a suite of 18,805 traces (uuid-like, as test/benchcmp's RS-1
// shape has) to a set, growing it from empty or after Reserve, as the gate does.
func BenchmarkIDs(b *testing.B) {
	ids := make([]string, 18805)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x-4e1d-4c8a-9f3b-%012x", i*2654435761, i)
	}
	for _, reserve := range []bool{false, true} {
		b.Run(fmt.Sprintf("reserve=%v", reserve), func(b *testing.B) {
			for b.Loop() {
				s := NewIDs("trace")
				if reserve {
					s.Reserve(len(ids))
				}
				for i, id := range ids {
					s.Add(id, i)
				}
			}
		})
	}
}
