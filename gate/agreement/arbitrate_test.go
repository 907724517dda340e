package agreement

import (
	"reflect"
	"testing"
)

// TestArbitrate covers every branch of the seed's final_arbitration (docs/design.md#the-source-systems and its
// code), with the outcome read off that code by hand.
func TestArbitrate(t *testing.T) {
	j := func(l string) Judgement { return Judgement{Label: l} }
	cases := []struct {
		name       string
		p          Pair
		final, why string
	}{
		{"provenance flag beats agreement", Pair{Scholar: j(Valid), Auditor: j(Valid), Flags: map[string]bool{FlagProvenance: true}}, Reject, "hard_flag"},
		{"constraints flag", Pair{Scholar: j(Valid), Auditor: j(Valid), Flags: map[string]bool{FlagConstraints: true}}, Reject, "hard_flag"},
		{"false flags are no flags", Pair{Scholar: j(Valid), Auditor: j(Valid), Flags: map[string]bool{FlagProvenance: false, FlagConstraints: false}}, Valid, "auditor_ok"},
		{"other flags are not read", Pair{Scholar: j(Valid), Auditor: j(Valid), Flags: map[string]bool{"template_drift": true}}, Valid, "auditor_ok"},
		{"flag beats citation", Pair{Scholar: j(Valid), Auditor: j(Valid), Flags: map[string]bool{FlagConstraints: true}, Citations: []string{"x"}}, Reject, "hard_flag"},
		{"citation outside retrieved", Pair{Scholar: j(Valid), Auditor: j(Valid), Citations: []string{"p1#2", "p9#9"}, RetrievedIDs: []string{"p1#2"}, HasRetrieved: true}, Reject, "citation_out_of_scope"},
		{"citations without retrieved_ids", Pair{Scholar: j(Valid), Auditor: j(Valid), Citations: []string{"p1#2"}}, Reject, "citation_out_of_scope"},
		{"citations inside retrieved", Pair{Scholar: j(Valid), Auditor: j(Valid), Citations: []string{"b", "a", "a"}, RetrievedIDs: []string{"a", "b", "c"}}, Valid, "auditor_ok"},
		{"citation beats veto", Pair{Scholar: j(Valid), Auditor: j(Reject), Citations: []string{"z"}}, Reject, "citation_out_of_scope"},
		{"no citations, retrieved only", Pair{Scholar: j(Valid), Auditor: j(Valid), RetrievedIDs: []string{"a"}}, Valid, "auditor_ok"},
		{"auditor NOT_IN_CONTEXT vetoes", Pair{Scholar: j(NotInContext), Auditor: j(NotInContext)}, Reject, "auditor_veto"},
		{"auditor REJECT vetoes", Pair{Scholar: j(Valid), Auditor: j(Reject)}, Reject, "auditor_veto"},
		{"auditor ABSTAIN vetoes", Pair{Scholar: j(Valid), Auditor: j(Abstain)}, Reject, "auditor_veto"},
		{"auditor unknown label vetoes", Pair{Scholar: j(Valid), Auditor: j("valid")}, Reject, "auditor_veto"},
		{"VALID VALID ships", Pair{Scholar: j(Valid), Auditor: j(Valid)}, Valid, "auditor_ok"},
		{"NOT_IN_CONTEXT VALID ships", Pair{Scholar: j(NotInContext), Auditor: j(Valid)}, Valid, "auditor_ok"},
		{"REJECT VALID incoherent", Pair{Scholar: j(Reject), Auditor: j(Valid)}, Reject, "incoherent_pair"},
		{"ABSTAIN VALID incoherent", Pair{Scholar: j(Abstain), Auditor: j(Valid)}, Reject, "incoherent_pair"},
		{"unknown VALID incoherent", Pair{Scholar: j("Valid"), Auditor: j(Valid)}, Reject, "incoherent_pair"},
	}
	for _, c := range cases {
		if f, w := Arbitrate(c.p); f != c.final || w != c.why {
			t.Errorf("%s: %s %s, want %s %s", c.name, f, w, c.final, c.why)
		}
	}
	// Large lists take the set path.
	var many []string
	for i := 0; i < 40; i++ {
		many = append(many, string(rune('A'+i)))
	}
	if f, w := Arbitrate(Pair{Scholar: j(Valid), Auditor: j(Valid), Citations: many[:30], RetrievedIDs: many}); f != Valid || w != "auditor_ok" {
		t.Errorf("large subset: %s %s", f, w)
	}
	if f, w := Arbitrate(Pair{Scholar: j(Valid), Auditor: j(Valid), Citations: many, RetrievedIDs: many[:30]}); f != Reject || w != "citation_out_of_scope" {
		t.Errorf("large non-subset: %s %s", f, w)
	}
}

func TestDisagreements(t *testing.T) {
	items := []Item{
		{QID: "1", Scholar: Valid, Auditor: Valid},
		{QID: "2", Scholar: Valid, Auditor: Reject},
		{QID: "3", Scholar: Abstain, Auditor: Abstain},
		{QID: "4", Scholar: "valid", Auditor: Valid},
	}
	got := Disagreements(ItemsOf(items))
	if want := []Item{items[1], items[3]}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if Disagreements(ItemsOf(items[:1])) != nil {
		t.Error("no disagreement should give nil")
	}
}

// TestSeedReportPass: pass compares the unrounded values with ≥, ≥, ≤ (docs/design.md#the-source-systems), and the
// default profile skips an undefined κ.
func TestSeedReportPass(t *testing.T) {
	// Values exactly at their gates pass.
	s := Summary{N: 10, PercentAgreement: 0.9, Kappa: 0.62, KappaDefined: true, AbstainRate: 0.1}
	if r := NewSeedReport(s, 0.9, 0.6, 0.1); !r.Pass {
		t.Error("boundaries are inclusive")
	}
	if r := NewSeedReport(s, 0.9, 0.6, 0.09); r.Pass {
		t.Error("abstain 0.1 > 0.09 passed")
	}
	if r := NewSeedReport(s, 0.9, 0.63, 0.1); r.Pass {
		t.Error("κ 0.62 < 0.63 passed")
	}
	// Rounded 0.89996 shows as 0.9 but fails a 0.9 gate, as in the seed.
	s.PercentAgreement = 0.89996
	if r := NewSeedReport(s, 0.9, 0.6, 0.1); r.Pass || r.PercentAgreement != 0.9 {
		t.Errorf("PA 0.89996: %+v", r)
	}
	s.PercentAgreement, s.KappaDefined, s.Kappa = 1, false, 0
	if r := NewSeedReport(s, 0.9, 0.75, 0.1); !r.Pass {
		t.Error("undefined κ should skip the κ gate")
	}
}
