package gate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// TestFormatsMixed runs the gate over record files with OTLP files and Inspect logs among
// them: the pipeline reads the record files, the others are read whole in between, and the
// report is the sequential reading's, byte for byte, with the traces in file order. The
// verdicts: every run of the format test data has one failed tool result of two, except the
// OpenInference "hi" run and Inspect's epoch 2. One failure the agent spoke after is a
// finding under the WARN line (tool_misuse 0.5, PASS: one event, not a rate): Inspect's
// timeout, the OpenInference email's "smtp unavailable", an outage the agent reports. The
// GenAI booking whose "payment declined" the agent relays ("the booking failed") is a tool
// that answered no, not one that failed (0). The OTLP run that ends on its failure, the
// agent silent after it, keeps RS-1's 1.5·1/2 (WARN).
func TestFormatsMixed(t *testing.T) {
	files := writeSuite(t, nil)
	dir := filepath.Dir(files[0])
	// copies named to sort between the suite's files (a0.jsonl, a1.jsonl, a2.jsonl, b.json)
	for src, dst := range map[string]string{
		"otlp-genai.json": "a0-otlp.json", "inspect-tools.eval": "a1-inspect.eval", "otlp-openinference.jsonl": "a3-otlp.jsonl",
	} {
		data, err := os.ReadFile(filepath.Join("trace", "testdata", "formats", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files = []string{filepath.Join(dir, "*")}
	seq := run(t, files, profile.Default, 0)
	par := run(t, files, profile.Default, 3)
	if seq != par {
		t.Fatalf("parallel report differs from the sequential one")
	}
	if strings.HasPrefix(seq, "error") {
		t.Fatal(seq)
	}
	var rep struct {
		Reliability struct {
			Traces []struct{ ID, File, Verdict string }
		}
	}
	if err := json.Unmarshal([]byte(seq), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range rep.Reliability.Traces {
		if base := strings.TrimPrefix(tr.File, dir+string(filepath.Separator)); strings.Contains(base, "-") {
			got = append(got, tr.ID+" "+tr.Verdict)
		}
	}
	want := []string{
		"5b8efff798038103d269b633813fc60c PASS", "6c0000000000000000000000000000aa WARN",
		"s1#1 PASS", "s1#2 PASS",
		"0af7651916cd43dd8448eb211c80319c PASS", "1bf7651916cd43dd8448eb211c80319d PASS",
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("traces of the new formats:\n got %v\nwant %v", got, want)
	}
	var order []string
	for _, tr := range rep.Reliability.Traces {
		f := strings.TrimPrefix(tr.File, dir+string(filepath.Separator))
		if len(order) == 0 || order[len(order)-1] != f {
			order = append(order, f)
		}
	}
	wantOrder := "a0-otlp.json a0.jsonl a1-inspect.eval[samples/s1_epoch_1.json] a1-inspect.eval[samples/s1_epoch_2.json] a1.jsonl a2.jsonl a3-otlp.jsonl b.json"
	if strings.Join(order, " ") != wantOrder {
		t.Errorf("file order %v, want %s", order, wantOrder)
	}
}

// TestFormatsBadInput checks that bad OTLP input stops the gate with its position, in the
// pipeline's run as in the sequential one.
func TestFormatsBadInput(t *testing.T) {
	files := writeSuite(t, nil)
	bad := filepath.Join(t.TempDir(), "spans.json")
	text := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{"}}]}]}]}]}`
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files[:2], append([]string{bad}, files[2:]...)...)
	want := "error: " + bad + ":1:44: attribute gen_ai.input.messages of span 0: invalid JSON at line 1, column 3 of its text: unexpected end of input in an object"
	for _, workers := range []int{0, 2} {
		if got := run(t, files, profile.Default, workers); got != want {
			t.Errorf("workers %d:\n got %s\nwant %s", workers, got, want)
		}
	}
}
