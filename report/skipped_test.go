package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/reliability"
)

// A gate breached by fail-on-skipped (docs/design.md#honest-words) reads as breached everywhere, and says it was
// skipped and why: the sentence, the gate table, the terminal, the annotation and JUnit's
// failure (not JUnit's skipped), in the suite of the gates no evaluator's suite holds.
func TestSkippedBreach(t *testing.T) {
	th := gate.DefaultThresholds()
	th.FailOnSkipped = gate.SkipAll
	r := &gate.Result{Reliability: &reliability.Summary{Total: 1, Pass: 1}, BaselineNote: "baseline auto: none <b>yet</b>: not compared"}
	r.Decide(th, gate.FailOnFail)
	md := Markdown(r, Options{})
	for _, want := range []string{
		"## ❌ agentgate: FAIL, check failing\n1 gate breached: fail-on-regression was skipped, so it measured nothing (fail-on-skipped).\n",
		"| fail-on-regression | — | ≤ 0 | ❌ **breached**: skipped, measured nothing (fail-on-skipped) | baseline auto: none &lt;b&gt;yet&lt;/b&gt;: not compared |",
	} {
		if !strings.Contains(squeeze(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var txt strings.Builder
	Text(&txt, r)
	if want := "  ✗ fail-on-regression  n/a  ≤ 0  BREACHED (skipped, measured nothing: fail-on-skipped): baseline auto: none <b>yet</b>: not compared\n"; !strings.Contains(txt.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, txt.String())
	}
	if got := Annotations(r, 10); len(got) != 1 || got[0].Message != "Fail-on-regression was skipped, so it measured nothing (fail-on-skipped)." {
		t.Errorf("annotations %#v", got)
	}
	var x bytes.Buffer
	if err := JUnit(&x, r); err != nil {
		t.Fatal(err)
	}
	if want := `<testsuite name="gates" tests="1" failures="1" errors="0" skipped="0">` + "\n" +
		`    <testcase name="gate fail-on-regression" classname="agentgate.gates">` + "\n" +
		`      <failure message="Fail-on-regression was skipped, so it measured nothing (fail-on-skipped)" type="gate">fail-on-regression: skipped (baseline auto: none &lt;b&gt;yet&lt;/b&gt;: not compared), must be ≤ 0</failure>`; !strings.Contains(x.String(), want) || strings.Contains(x.String(), "<skipped") {
		t.Errorf("JUnit lacks %q, or reports the gate skipped:\n%s", want, x.String())
	}
}
