package reliability

import (
	"testing"

	"github.com/agentgate/agentgate/gate/trace"
)

// BenchmarkDecodeCalls decodes the arguments of every call of the generated suite.
func BenchmarkDecodeCalls(b *testing.B) {
	traces, _ := suiteTraces(b, 2000)
	var calls []*trace.Call
	for _, t := range traces {
		for i := range t.Messages {
			for j := range t.Messages[i].Calls {
				calls = append(calls, &t.Messages[i].Calls[j])
			}
		}
	}
	var e eval
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%len(calls) == 0 {
			e.members, e.argText = e.members[:0], e.argText[:0]
		}
		e.decodeCall(0, calls[i%len(calls)])
		i++
	}
}
