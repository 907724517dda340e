package reliability

import (
	"cmp"
	"slices"
)

// pairing says which result answers which call (docs/design.md#input-files). Messages are walked in order, a
// message's calls before its results; a result pairs with the earliest call of the same id
// that came before it and is still unanswered; a result with no such call is an orphan.
// Tool-call ids repeat in real transcripts (tau-bench reuses them within one run) and results
// may arrive several messages late, so ids alone (as RS-1's sets use them) cannot pair.
// Calls and results without an id pair with nothing and are left out of both counts, as
// RS-1 leaves them out of its sets.
type pairing struct {
	callOf   []int32 // per result: index of the call it answers, or -1
	resultOf []int32 // per call: index of the result that answers it, or -1
}

// pair computes the pairing in O(n log n) without maps: calls and results are each sorted
// by id (stably, so that each id's calls stay in trace order) and merged id by id. It reuses
// the memory of p and of the scratch s.
func pair(calls []callRef, results []resultRef, p pairing, s *pairScratch) pairing {
	p.callOf, p.resultOf = grow(p.callOf, len(results)), grow(p.resultOf, len(calls))
	for i := range p.callOf {
		p.callOf[i] = -1
	}
	for i := range p.resultOf {
		p.resultOf[i] = -1
	}
	ci := s.calls[:0]
	for i := range calls {
		if calls[i].call.HasID {
			ci = append(ci, int32(i))
		}
	}
	ri := s.results[:0]
	for i := range results {
		if results[i].res.HasID {
			ri = append(ri, int32(i))
		}
	}
	slices.SortStableFunc(ci, func(a, b int32) int { return cmp.Compare(calls[a].call.ID, calls[b].call.ID) })
	slices.SortStableFunc(ri, func(a, b int32) int { return cmp.Compare(results[a].res.CallID, results[b].res.CallID) })

	c := 0
	for r := 0; r < len(ri); {
		id := results[ri[r]].res.CallID
		for c < len(ci) && calls[ci[c]].call.ID < id {
			c++
		}
		end := c
		for end < len(ci) && calls[ci[end]].call.ID == id {
			end++
		}
		// calls[ci[c:end]] and the results with this id are both in trace order. head is
		// the earliest unanswered call; pushed counts the calls made before the result.
		head, pushed := c, c
		for ; r < len(ri) && results[ri[r]].res.CallID == id; r++ {
			res := ri[r]
			for pushed < end && calls[ci[pushed]].msg <= results[res].msg {
				pushed++
			}
			if head < pushed {
				p.callOf[res] = ci[head]
				p.resultOf[ci[head]] = res
				head++
			}
		}
		c = end
	}
	s.calls, s.results = ci, ri
	return p
}

// pairScratch is pair's working memory.
type pairScratch struct {
	calls, results []int32
}

// unanswered lists the calls with an id that no result answered, in trace order.
func (p pairing) unanswered(calls []callRef) []int {
	var out []int
	for i, r := range p.resultOf {
		if r < 0 && calls[i].call.HasID {
			out = append(out, i)
		}
	}
	return out
}

// orphans lists the results with an id that answer no call, in trace order.
func (p pairing) orphans(results []resultRef) []int {
	var out []int
	for i, c := range p.callOf {
		if c < 0 && results[i].res.HasID {
			out = append(out, i)
		}
	}
	return out
}
