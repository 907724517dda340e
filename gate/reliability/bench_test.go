package reliability

import (
	"fmt"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/trace"
)

// benchTrace is a synthetic 21-message agent run: a user request, then ten rounds of an
// assistant message with one tool call and the tool's answer, some failing, some repeated.
func benchTrace() *trace.Trace {
	tr := &trace.Trace{ID: "bench", Usage: trace.Usage{Prompt: 9000, Completion: 1500, Total: 10500, Recorded: true}}
	tr.Messages = append(tr.Messages, msg("user", "Please find the cheapest flight from JFK to SEA on May 20 and book it."))
	for i := 0; i < 10; i++ {
		id := fmt.Sprintf("call_%02d", i)
		args := fmt.Sprintf(`{"origin":"JFK","destination":"SEA","date":"2024-05-%02d","cabin":"economy"}`, 20+i%3)
		text := fmt.Sprintf("Let me search the flights for day %d and compare the prices for you.", i)
		tr.Messages = append(tr.Messages, withCalls(msg("assistant", text), call(id, "search_flights", args)))
		if i%4 == 3 {
			tr.Messages = append(tr.Messages, withResults(msg("tool", "Error: service unavailable"), fail(id)))
		} else {
			tr.Messages = append(tr.Messages, withResults(msg("tool", `[{"flight":"HAT136","price":152}]`), ok(id)))
		}
	}
	return tr
}

func BenchmarkEvaluate(b *testing.B) {
	tr := benchTrace()
	for _, p := range []profile.Profile{profile.Reference, profile.Default} {
		b.Run(string(p), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = Evaluate(tr, p)
			}
		})
	}
}

// FuzzEvaluate builds traces from arbitrary text, arguments and ids (valid JSON or not,
// invalid UTF-8, repeated and missing ids) and checks that evaluation never panics, keeps
// scores in [0, 1] and keeps the evidence contract, under both profiles.
func FuzzEvaluate(f *testing.F) {
	f.Add("I called it", []byte(`{"q":"error"}`), "id", uint16(0x0f0f), int64(8000))
	f.Add("", []byte(`{not json`), "", uint16(0xffff), int64(0))
	f.Add("ΟΔΟΣ İ", []byte("\"\xff\""), "x\x00", uint16(0x1234), int64(1<<40))
	f.Fuzz(func(t *testing.T, text string, args []byte, id string, shape uint16, tokens int64) {
		tr := &trace.Trace{ID: id, Usage: trace.Usage{Total: max(tokens, 0), Prompt: max(tokens/2, 0),
			Completion: max(tokens/3, 0), Recorded: shape&1 == 1}}
		roles := []string{"user", "assistant", "tool", "system"}
		for i := 0; i < int(shape%23); i++ {
			m := msg(roles[(int(shape)>>i)&3], text[:min(len(text), i*3)])
			cid := id
			if (shape>>(i%16))&2 != 0 {
				cid = ""
			}
			if i%3 == 1 {
				c := call(cid, text[:min(len(text), i)], "")
				c.Args, c.ArgsValid = args, (shape>>(i%16))&4 != 0
				m = withCalls(m, c)
			}
			if i%4 == 2 {
				r := ok(cid)
				r.Success = (shape>>(i%16))&8 != 0
				m = withResults(m, r)
			}
			tr.Messages = append(tr.Messages, m)
		}
		for _, p := range []profile.Profile{profile.Reference, profile.Default} {
			r := Evaluate(tr, p)
			all := scores(r)
			for _, s := range append(all[:], r.Score) {
				if !(s >= 0 && s <= 1) {
					t.Fatalf("%s: score %v out of [0, 1]", p, s)
				}
			}
			checkEvidence(t, r)
			_ = r.RS1().PythonJSON(true)
		}
	})
}
