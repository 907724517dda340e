package entrypoint

import (
	"os"
	"path/filepath"
	"testing"
)

// A range error in a config file names the value's line and column, as a value that is not a
// number does; on the command line and as an input, the flag or input.
func TestRangeErrorsNameTheirPlace(t *testing.T) {
	dir := t.TempDir()
	traces := "../fixtures/pass/traces.jsonl"
	for _, c := range []struct{ yaml, want string }{
		{"pa-min: 1.5", ":2:9: pa-min must be between 0 and 1, got 1.5"},
		{"pass-k: 0", ":2:9: pass-k must be 1 or more, got 0"},
		{"regression-alpha: 1", ":2:19: regression-alpha must be between 0 and 1 (exclusive), got 1"},
		{"max-failed-traces: -1", ":2:20: max-failed-traces must be 0 or more, got -1"},
		{"kappa-min:   -2", ":2:14: kappa-min must be between -1 and 1, got -2"},
		{"pass-k-min: 2", ":2:13: pass-k-min must be between 0 and 1, got 2"},
		{"pa-min: abc", `:2:9: pa-min: "abc" is not a number`},
	} {
		cfg := filepath.Join(dir, "c.yml")
		if err := os.WriteFile(cfg, []byte("traces: "+traces+"\n"+c.yaml+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := cli(t, "", "gate", "--config", cfg)
		if want := "agentgate: " + cfg + c.want + "\n"; code != 3 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q, want 3 and %q", c.yaml, code, stderr, want)
		}
	}
	code, _, stderr := cli(t, "", "gate", "--traces", traces, "--regression-alpha", "0")
	if want := "agentgate: --regression-alpha must be between 0 and 1 (exclusive), got 0\n"; code != 3 || stderr != want {
		t.Errorf("flag: exit %d, stderr %q, want %q", code, stderr, want)
	}
	// success-threshold is on the scale of the suite's rewards, which need not be [0, 1].
	if code, _, stderr := cli(t, "", "gate", "--traces", traces, "--success-threshold", "2"); code == 3 {
		t.Errorf("--success-threshold 2: exit 3: %s", stderr)
	}
}
