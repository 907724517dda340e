// Package agreement is the cross-agent consistency evaluator (seed 002: Scholar vs Auditor):
// it reads the two validators' labels, measures how far they agree (percent agreement,
// Cohen's κ with its standard error and interval, κ_max, PABAK, Gwet's AC1, the abstain rate)
// and applies the seed's deterministic arbitration to every item.
//
// The reference profile reproduces the seed's reference scorer exactly (its numbers, its
// item order, and its choices: unknown labels and unmatched qids silently dropped, the abstain
// rate from the Scholar's labels only, κ = 0 when chance agreement is 1). The default profile
// fixes those: see LoadMerged, LoadJoined and Compute.
package agreement

// The arbitration's reasons (the "why" of an Item), in the order the seed's policy tries them.
const (
	WhyHardFlag           = "hard_flag"             // provenance_violation or constraints_mismatch
	WhyCitationOutOfScope = "citation_out_of_scope" // a citation outside retrieved_ids
	WhyAuditorVeto        = "auditor_veto"          // the Auditor did not say VALID
	WhyAuditorOK          = "auditor_ok"            // the Auditor said VALID, the Scholar agreed or refused
	WhyIncoherentPair     = "incoherent_pair"       // the Auditor said VALID, the Scholar REJECT or ABSTAIN
)

// IsHardFlag reports whether why is a red flag that rejects an item whatever the validators said.
func IsHardFlag(why string) bool { return why == WhyHardFlag || why == WhyCitationOutOfScope }

// Arbitrate is the seed's final_arbitration (docs/design.md#gates-and-exit-codes), exactly: a hard flag (provenance_violation
// or constraints_mismatch) or a citation outside retrieved_ids rejects the item; otherwise the
// Auditor vetoes anything it did not find VALID; a VALID from the Auditor ships when the
// Scholar said VALID or NOT_IN_CONTEXT, and is rejected as incoherent otherwise.
//
// why is one of hard_flag, citation_out_of_scope, auditor_veto, auditor_ok, incoherent_pair.
// As in the seed, citations are checked whenever there are any, even when the record had no
// retrieved_ids at all.
func Arbitrate(p Pair) (final, why string) {
	hard := p.Flags[FlagProvenance] || p.Flags[FlagConstraints]
	outOfScope := len(p.Citations) > 0 && !subset(p.Citations, p.RetrievedIDs)
	return arbitrate(hard, outOfScope, p.Scholar.Label, p.Auditor.Label)
}

// arbitrate is the policy of Arbitrate over what it reads of a pair: whether a hard flag is
// set, whether a citation is out of scope, and the two labels.
func arbitrate(hard, outOfScope bool, scholar, auditor string) (final, why string) {
	f, w := arbitrateCodes(hard, outOfScope, labelCode(scholar), labelCode(auditor))
	return Labels[f], whys[w]
}

// arbitrateCodes is arbitrate over label codes (see Items), returning the codes of the
// final label and of the reason.
func arbitrateCodes(hard, outOfScope bool, scholar, auditor uint8) (final, why uint8) {
	const valid, notInContext, reject = 0, 1, 2 // indexes in Labels
	switch {
	case hard:
		return reject, 0 // WhyHardFlag
	case outOfScope:
		return reject, 1 // WhyCitationOutOfScope
	case auditor != valid:
		return reject, 2 // WhyAuditorVeto
	case scholar == valid || scholar == notInContext:
		return valid, 3 // WhyAuditorOK
	}
	return reject, 4 // WhyIncoherentPair
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	if len(a)*len(b) > 256 {
		set := make(map[string]struct{}, len(b))
		for _, x := range b {
			set[x] = struct{}{}
		}
		for _, x := range a {
			if _, ok := set[x]; !ok {
				return false
			}
		}
		return true
	}
next:
	for _, x := range a {
		for _, y := range b {
			if x == y {
				continue next
			}
		}
		return false
	}
	return true
}

// Disagreements returns the items whose two labels differ, in order: the rows of the seed's
// disagreements TSV (qid, scholar, auditor, final, why).
func Disagreements(items Items) []Item {
	var out []Item
	for _, it := range items.All() {
		if it.Scholar != it.Auditor {
			out = append(out, it)
		}
	}
	return out
}

// CountDisagreements returns how many items have two different labels: len(Disagreements(items))
// without the list.
func CountDisagreements(items Items) int {
	n := 0
	for i := range items.recs {
		if items.disagree(i) {
			n++
		}
	}
	return n
}
