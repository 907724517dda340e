package reliability

import (
	"encoding/binary"
	"hash/fnv"
	"math"
)

// ContentKey is what tells apart runs that share an identity (compare.Renumber;
// docs/comparison-and-statistics.md, "Which run is which: identity"): a digest of what the
// run recorded, as the JSON report gives it, then that content itself, so that keys compare
// by the digest first. It leaves out where the run lies (file, line) and what names it (id,
// suite, task, trial), and takes the run as it was alone, before its cost was compared with
// its suite's (RelateCost): so a run has one key whichever file holds it, however the files
// are named or ordered, and a shard's report gives it the key one run over its files gives.
// What it holds: the agent; the outcome (known, value) and tokens; the counts of messages and
// tool calls; the signals, verdict and evidence.
func (r *Result) ContentKey() string {
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(f float64) { b = binary.BigEndian.AppendUint64(b, math.Float64bits(f)) }
	integer := func(n int64) { b = binary.AppendVarint(b, n) }

	if a := r.Attempt; a != nil {
		str(a.Agent)
	} else {
		str("")
	}
	if r.Run.Known {
		b = append(b, 1)
		num(r.Run.Value)
		integer(r.Run.Tokens)
	} else {
		b = append(b, 0)
	}
	tokens := int64(-1)
	signals, v := r.Signals, r.Verdict
	if sc := r.SuiteCost; sc != nil {
		tokens = sc.Tokens
		if sc.Relative != 0 {
			signals[Cost], v = sc.Alone, sc.AloneVerdict
		}
	}
	integer(tokens)
	integer(int64(r.Messages))
	integer(int64(r.ToolCalls))
	for _, s := range signals {
		num(s)
	}
	str(string(v))
	for _, e := range r.Evidence {
		if e.Relative {
			continue
		}
		str(e.Signal)
		str(e.Text)
		integer(int64(len(e.Messages)))
		for _, m := range e.Messages {
			integer(int64(m))
		}
		if e.Floor {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	h := fnv.New64a()
	h.Write(b)
	return string(h.Sum(nil)) + string(b)
}
