package agreement

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// Each test here shows one difference between the profiles, on a case the reference (the
// seed's scorer) gets wrong. The reference figures are the seed's own (seedGolden, produced by
// running it) or follow from its code as stated.

func goldenCase(t *testing.T, name string) seedCase {
	t.Helper()
	for _, c := range seedGolden {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no golden case %q", name)
	return seedCase{}
}

// TestDiffAbstainEitherValidator: the Auditor abstains on 1 of 10 items. The seed reports an
// abstain rate of 0.0 (it counts the Scholar's ABSTAINs only) and would pass a 0.02 abstain
// gate; the default profile reports 0.1.
func TestDiffAbstainEitherValidator(t *testing.T) {
	c := goldenCase(t, "merged_auditor_abstains")
	if !strings.Contains(c.stdout, `"abstain_rate": 0.0,`) {
		t.Fatal("golden case changed")
	}
	paths := writeFiles(t, c.files...)
	for _, x := range []struct {
		p    profile.Profile
		want float64
	}{{profile.Reference, 0}, {profile.Default, 0.1}} {
		pairs, err := LoadMerged(paths, x.p)
		if err != nil {
			t.Fatal(err)
		}
		if s := Compute(pairs, nil, x.p); s.AbstainRate != x.want {
			t.Errorf("%s: abstain rate %v, want %v", x.p, s.AbstainRate, x.want)
		}
	}
}

// TestDiffUnknownLabel: a lower-case "valid" is silently dropped by the seed (n = 16 of 18
// rows in merged_branches, and the row still counts as a disagreement); the default profile
// stops with an error naming the place and the allowed labels.
func TestDiffUnknownLabel(t *testing.T) {
	c := goldenCase(t, "merged_branches")
	if !strings.Contains(c.stdout, `"n": 16,`) || !strings.Contains(c.tsv, "A0010\tvalid\tVALID") {
		t.Fatal("golden case changed")
	}
	pairs, err := LoadMerged(writeFiles(t, c.files...), profile.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if s := Compute(pairs, nil, profile.Reference); s.N != 16 || len(pairs) != 18 {
		t.Errorf("reference: n %d of %d pairs", s.N, len(pairs))
	}
	text := `{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}` + "\n" +
		`{"qid": "b", "scholar": {"label": "valid"}, "auditor": {"label": "VALID"}}` + "\n" +
		`{"qid": "c", "scholar": {"label": "REJECT"}, "auditor": {"label": "REJECT"}}` + "\n"
	paths := writeFiles(t, text)
	pairs, err = LoadMerged(paths, profile.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if s := Compute(pairs, nil, profile.Reference); s.N != 2 || s.PercentAgreement != 1 || s.Kappa != 1 || len(s.Warnings) != 0 {
		t.Errorf("reference: %+v", s)
	}
	_, err = LoadMerged(paths, profile.Default)
	if got, want := relErr(t, err, paths), `f0.jsonl:2:35: field "scholar.label": unknown label "valid": want VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)`; got != want {
		t.Errorf("default: %s\nwant %s", got, want)
	}
	// Pairs built by hand may still hold one: Compute leaves it out and says so.
	if s := Compute(pairs, nil, profile.Default); s.N != 2 || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], "1 pair(s) with a label other than") {
		t.Errorf("default Compute: %+v", s)
	}
}

// TestDiffUnmatched: qids only one validator labelled vanish from the seed's report without a
// word (joined_basic: 8 Scholar qids, 8 Auditor qids, n = 5); the default profile lists them.
func TestDiffUnmatched(t *testing.T) {
	scholar := `{"qid": "q1", "label": "VALID"}` + "\n" + `{"qid": "q2", "label": "VALID"}` + "\n" + `{"qid": "q3", "label": "REJECT"}` + "\n"
	auditor := `{"qid": "q3", "label": "REJECT"}` + "\n" + `{"qid": "q4", "label": "VALID"}` + "\n" + `{"qid": "q1", "label": "VALID"}` + "\n"
	paths := writeFiles(t, scholar, auditor)
	pairs, unmatched, err := LoadJoined(paths[:1], paths[1:], profile.Reference)
	if err != nil || unmatched != nil || len(pairs) != 2 {
		t.Fatalf("reference: %v %v %v", pairs, unmatched, err)
	}
	pairs, unmatched, err = LoadJoined(paths[:1], paths[1:], profile.Default)
	want := []Unmatched{{QID: "q2", OnlyIn: "scholar", File: paths[0], Line: 2}, {QID: "q4", OnlyIn: "auditor", File: paths[1], Line: 2}}
	if err != nil || len(pairs) != 2 || len(unmatched) != 2 || unmatched[0] != want[0] || unmatched[1] != want[1] {
		t.Errorf("default: %v %v %v", pairs, unmatched, err)
	}
}

// TestDiffRepeatedQIDJoined: the seed's dict keeps the last label of a repeated qid (in
// joined_basic, q1 is REJECT then VALID for the Scholar, and the seed scores VALID/VALID); the
// default profile reports the repetition with both lines.
func TestDiffRepeatedQIDJoined(t *testing.T) {
	c := goldenCase(t, "joined_basic")
	if c.items[0] != "Q10\tNOT_IN_CONTEXT\tVALID\tVALID\tauditor_ok" || c.items[1] != "q1\tVALID\tVALID\tVALID\tauditor_ok" {
		t.Fatal("golden case changed")
	}
	paths := writeFiles(t, c.files...)
	_, _, err := LoadJoined(paths[:1], paths[1:], profile.Default)
	if got, want := relErr(t, err, paths), `f0.jsonl:4:1: qid "q1" is repeated: it is first at f0.jsonl:2`; got != want {
		t.Errorf("default: %s\nwant %s", got, want)
	}
}

// TestDiffRepeatedQIDMerged: a pairs file that repeats a qid is counted twice by the seed
// (A0005 in merged_branches); the default profile rejects it.
func TestDiffRepeatedQIDMerged(t *testing.T) {
	text := `{"qid": "A", "scholar": {"label": "VALID"}, "auditor": {"label": "REJECT"}}` + "\n" +
		`{"qid": "B", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}}` + "\n" +
		`{"qid": "A", "scholar": {"label": "VALID"}, "auditor": {"label": "REJECT"}}` + "\n"
	paths := writeFiles(t, text)
	pairs, err := LoadMerged(paths, profile.Reference)
	if err != nil || len(pairs) != 3 {
		t.Fatalf("reference: %d pairs, %v", len(pairs), err)
	}
	if s := Compute(pairs, nil, profile.Reference); s.PercentAgreement != 1.0/3 {
		t.Errorf("reference PA %v, want 1/3 (A counted twice)", s.PercentAgreement)
	}
	_, err = LoadMerged(paths, profile.Default)
	if got, want := relErr(t, err, paths), `f0.jsonl:3:1: qid "A" is repeated: it is first at f0.jsonl:1`; got != want {
		t.Errorf("default: %s\nwant %s", got, want)
	}
}

// TestDiffKappaUndefined: two validators who label all six items VALID agree perfectly, yet
// the seed reports κ = 0.0 and "pass": false (merged_all_valid). The default profile says κ
// is undefined, skips its gate and passes on percent agreement.
func TestDiffKappaUndefined(t *testing.T) {
	c := goldenCase(t, "merged_all_valid")
	if !strings.Contains(c.stdout, `"kappa": 0.0,`) || !strings.Contains(c.stdout, `"pass": false`) {
		t.Fatal("golden case changed")
	}
	paths := writeFiles(t, c.files...)
	pairs, err := LoadMerged(paths, profile.Default)
	if err != nil {
		t.Fatal(err)
	}
	s := Compute(pairs, nil, profile.Default)
	if s.KappaDefined || s.Kappa != 0 || s.Band != BandUndefined || s.PercentAgreement != 1 || s.AC1 != 1 || s.PABAK != 1 {
		t.Errorf("default: %+v", s)
	}
	if len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], "κ is undefined: both validators labelled every one of the 6 items VALID") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if r := NewSeedReport(s, 0.9, 0.75, 0.02); !r.Pass {
		t.Error("default seed report should pass")
	}
	r := Compute(pairs, nil, profile.Reference)
	if !r.KappaDefined || r.Kappa != 0 || NewSeedReport(r, 0.9, 0.75, 0.02).Pass {
		t.Errorf("reference: %+v", r)
	}
}

// TestDiffStringFlag: "provenance_violation": "false" is true to Python, so the seed rejects
// A0013 as a hard flag (merged_branches); the default profile wants true, false or null there.
func TestDiffStringFlag(t *testing.T) {
	c := goldenCase(t, "merged_branches")
	if c.items[12] != "A0013\tREJECT\tREJECT\tREJECT\thard_flag" {
		t.Fatal("golden case changed")
	}
	text := `{"qid": "a", "scholar": {"label": "VALID"}, "auditor": {"label": "VALID"}, "flags": {"provenance_violation": "false"}}`
	paths := writeFiles(t, text)
	pairs, err := LoadMerged(paths, profile.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if f, w := Arbitrate(pairs[0]); f != Reject || w != "hard_flag" {
		t.Errorf("reference: %s %s", f, w)
	}
	_, err = LoadMerged(paths, profile.Default)
	if got, want := relErr(t, err, paths), `f0.jsonl:1:110: field "flags.provenance_violation": expected true, false or null, found a string`; got != want {
		t.Errorf("default: %s\nwant %s", got, want)
	}
}

// TestDiffQIDNumberVsString: one harness writes qid 7, the other "7". To the seed these are
// two qids, each dropped as unmatched; the default profile says what went wrong.
func TestDiffQIDNumberVsString(t *testing.T) {
	paths := writeFiles(t, `{"qid": 7, "label": "VALID"}`, `{"qid": "7", "label": "VALID"}`)
	pairs, unmatched, err := LoadJoined(paths[:1], paths[1:], profile.Reference)
	if err != nil || len(pairs) != 0 || unmatched != nil {
		t.Errorf("reference: %v %v %v", pairs, unmatched, err)
	}
	if _, _, err := LoadJoined(paths[:1], paths[1:], profile.Default); err == nil {
		t.Error("default accepted 7 and \"7\"")
	}
}
