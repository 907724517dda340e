package entrypoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigOK is the reviewer's clean run (reward 1.0) that spends 115000 tokens in 4 messages.
const bigOK = `{"trace_id": "big-ok", "reward": 1.0, "token_usage": {"prompt_tokens": 110000, "completion_tokens": 5000, "total_tokens": 115000}, "messages": [{"role": "user", "content": "summarize repo", "tool_calls": [], "tool_results": []}, {"role": "assistant", "content": "", "tool_calls": [{"tool_name": "read", "arguments": {"f": "a"}, "call_id": "r1"}], "tool_results": []}, {"role": "tool", "content": "", "tool_calls": [], "tool_results": [{"call_id": "r1", "success": true, "result": "x", "error": null}]}, {"role": "assistant", "content": "Summary.", "tool_calls": [], "tool_results": []}]}` + "\n"

// token-budget lets a team say what a run may spend: at RS-1's 100000 the reviewer's big-ok is
// WARN on cost 1 and the report does not name a budget; at 200000 it is within the budget, cost
// 0 (the default profile has no absolute threshold below the budget: a run is compared with its
// suite's), PASS, and the JSON report, the markdown footer and its reproduce command, and
// SARIF's run properties carry the budget.
func TestTokenBudgetReport(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces.jsonl")
	if err := os.WriteFile(traces, []byte(bigOK), 0o644); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Verdict     string `json:"verdict"`
		TokenBudget *int64 `json:"token_budget"`
		Reliability struct {
			Traces []struct {
				Verdict string             `json:"verdict"`
				Score   float64            `json:"score"`
				Signals map[string]float64 `json:"signals"`
			} `json:"traces"`
		} `json:"reliability"`
	}
	for _, c := range []struct {
		args     []string
		verdict  string
		cost     float64
		score    float64
		budget   int64 // 0: no token_budget member
		footer   string
		fragment string // of the JSON text
	}{
		{nil, "WARN", 1, 0.15, 0, "Profile `default`. Reproduce locally:\n\n```sh\nagentgate gate --traces " + traces + "\n```\n", `"profile": "default",` + "\n  \"exit_code\""},
		{[]string{"--token-budget", "100000"}, "WARN", 1, 0.15, 0, "Profile `default`. Reproduce locally:\n\n```sh\nagentgate gate --traces " + traces + "\n```\n", `"profile": "default",` + "\n  \"exit_code\""},
		{[]string{"--token-budget", "200000"}, "PASS", 0, 0, 200000,
			"Profile `default`, token budget 200000 a run (cost reads 1 above it). Reproduce locally:\n\n```sh\nagentgate gate --traces " + traces + " --token-budget 200000\n```\n",
			`"profile": "default",` + "\n  \"token_budget\": 200000,\n  \"exit_code\""},
		{[]string{"--token-budget", "20000"}, "WARN", 1, 0.15, 20000,
			"Profile `default`, token budget 20000 a run (cost reads 1 above it). Reproduce locally:\n\n```sh\nagentgate gate --traces " + traces + " --token-budget 20000\n```\n",
			`"token_budget": 20000,`},
	} {
		js, md, sarif := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.sarif")
		args := append([]string{"gate", "--traces", traces, "--json", js, "--markdown", md, "--sarif", sarif}, c.args...)
		if code, _, stderr := cli(t, "", args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		tr := r.Reliability.Traces[0]
		if r.Verdict != c.verdict || tr.Verdict != c.verdict || tr.Signals["cost"] != c.cost || tr.Score != c.score {
			t.Errorf("%q: verdict %s, trace %s cost %v score %v; want %s, cost %v, score %v", c.args, r.Verdict, tr.Verdict, tr.Signals["cost"], tr.Score, c.verdict, c.cost, c.score)
		}
		switch {
		case c.budget == 0 && r.TokenBudget != nil:
			t.Errorf("%q: token_budget %d at the default", c.args, *r.TokenBudget)
		case c.budget != 0 && (r.TokenBudget == nil || *r.TokenBudget != c.budget):
			t.Errorf("%q: token_budget %v, want %d", c.args, r.TokenBudget, c.budget)
		}
		if !strings.Contains(string(b), c.fragment) {
			t.Errorf("%q: no %q in\n%s", c.args, c.fragment, b)
		}
		sa, _ := os.ReadFile(sarif)
		if got, want := strings.Contains(string(sa), `"agentgate/tokenBudget"`), c.budget != 0; got != want ||
			want && !strings.Contains(string(sa), fmt.Sprintf(`"agentgate/tokenBudget": %d,`, c.budget)) {
			t.Errorf("%q: SARIF's run properties name the budget: %t, want %t", c.args, got, want)
		}
		m, _ := os.ReadFile(md)
		if !strings.HasSuffix(string(m), c.footer) {
			t.Errorf("%q: markdown ends\n%s\nwant\n%s", c.args, m[max(0, len(m)-len(c.footer)-40):], c.footer)
		}
	}
}

// A token budget below 1 is refused where it was given, and the reference profile, which
// reproduces RS-1, refuses any budget but RS-1's, naming both settings: exit code 3.
func TestTokenBudgetRefused(t *testing.T) {
	dir := t.TempDir()
	traces := "../fixtures/pass/traces.jsonl"
	for _, c := range []struct{ yaml, want string }{
		{"token-budget: 0", ":2:15: token-budget must be 1 or more, got 0"},
		{"token-budget: -100000", ":2:15: token-budget must be 1 or more, got -100000"},
		{"token-budget:  1e5", `:2:16: token-budget: "1e5" is not a whole number`},
		{"profile: reference\ntoken-budget: 200000", ": token-budget is 200000, but " + "CFG:2:10: profile is \"reference\", which reproduces RS-1 and its budget of 100000 tokens: use profile \"default\", or leave token-budget unset"},
	} {
		cfg := filepath.Join(dir, "c.yml")
		if err := os.WriteFile(cfg, []byte("traces: "+traces+"\n"+c.yaml+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "agentgate: " + cfg + strings.ReplaceAll(c.want, "CFG", cfg) + "\n"
		if strings.Contains(c.yaml, "reference") {
			want = "agentgate: " + cfg + ":3:15" + strings.ReplaceAll(c.want, "CFG", cfg) + "\n"
		}
		if code, _, stderr := cli(t, "", "gate", "--config", cfg); code != 3 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q, want 3 and %q", c.yaml, code, stderr, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--token-budget", "0"}, "--token-budget must be 1 or more, got 0"},
		{[]string{"--token-budget", "-1"}, "--token-budget must be 1 or more, got -1"},
		{[]string{"--token-budget", "100k"}, `--token-budget: "100k" is not a whole number`},
		{[]string{"--profile", "reference", "--token-budget", "200000"},
			`--token-budget is 200000, but --profile is "reference", which reproduces RS-1 and its budget of 100000 tokens: use profile "default", or leave token-budget unset`},
		{[]string{"--token-budget", "1", "--profile", "reference"},
			`--token-budget is 1, but --profile is "reference", which reproduces RS-1 and its budget of 100000 tokens: use profile "default", or leave token-budget unset`},
	} {
		code, _, stderr := cli(t, "", append([]string{"gate", "--traces", traces}, c.args...)...)
		if want := "agentgate: " + c.want + "\n"; code != 3 || stderr != want {
			t.Errorf("%q: exit %d, stderr %q, want 3 and %q", c.args, code, stderr, want)
		}
	}
	// RS-1's own budget, given explicitly, is the reference's: no error.
	if code, _, stderr := cli(t, "", "gate", "--traces", traces, "--profile", "reference", "--token-budget", "100000"); code == 3 {
		t.Errorf("reference with 100000: exit 3: %s", stderr)
	}
	// As action inputs, the inputs are named.
	s := settings{"token-budget": {value: "-5", source: "input token-budget"}}
	if _, err := s.gateConfig(); err == nil || err.Error() != "input token-budget must be 1 or more, got -5" {
		t.Errorf("input -5: %v", err)
	}
	s = settings{"token-budget": {value: "150000", source: "input token-budget"}, "profile": {value: "reference", source: "input profile"}}
	if _, err := s.gateConfig(); err == nil || err.Error() != `input token-budget is 150000, but input profile is "reference", which reproduces RS-1 and its budget of 100000 tokens: use profile "default", or leave token-budget unset` {
		t.Errorf("input with reference: %v", err)
	}
}

// Shards gated with one token budget merge, given it, into the report one run gives.
func TestTokenBudgetMerge(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(bigOK), 0o644)
	os.WriteFile(b, []byte(strings.Replace(bigOK, `"big-ok"`, `"big-ok-2"`, 1)), 0o644)
	run := func(args ...string) []byte {
		t.Helper()
		out := filepath.Join(dir, "out.json")
		if code, _, stderr := cli(t, "", append(args, "--json", out)...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		r, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	os.WriteFile(filepath.Join(dir, "a.json"), run("gate", "--traces", a, "--token-budget", "200000"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), run("gate", "--traces", b, "--token-budget", "200000"), 0o644)
	merged := run("merge", "--token-budget", "200000", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"))
	whole := run("gate", "--traces", a, "--traces", b, "--token-budget", "200000")
	var m, w map[string]any
	json.Unmarshal(merged, &m)
	json.Unmarshal(whole, &w)
	delete(m, "source")
	delete(w, "source")
	if mj, _ := json.Marshal(m); string(mj) != mustJSON(w) || m["token_budget"] != 200000.0 || m["verdict"] != "PASS" {
		t.Errorf("merged:\n%s\nwant:\n%s", mj, mustJSON(w))
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A baseline gated with another token budget is not compared with: its verdicts and cost
// scores were read against other thresholds. The note says so; the run goes on.
func TestTokenBudgetBaseline(t *testing.T) {
	dir := t.TempDir()
	traces, base, out := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "base.json"), filepath.Join(dir, "out.json")
	os.WriteFile(traces, []byte(bigOK), 0o644)
	if code, _, stderr := cli(t, "", "gate", "--traces", traces, "--json", base); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		budget, note string
	}{
		{"200000", "baseline " + base + " was written with token-budget 100000, this run uses 200000: not compared"},
		{"100000", ""},
	} {
		if code, _, stderr := cli(t, "", "gate", "--traces", traces, "--baseline", base, "--token-budget", c.budget, "--json", out); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r struct {
			Note       string          `json:"baseline_note"`
			Comparison json.RawMessage `json:"comparison"`
		}
		b, _ := os.ReadFile(out)
		json.Unmarshal(b, &r)
		if r.Note != c.note || (c.note == "") != (r.Comparison != nil) {
			t.Errorf("%s: note %q, comparison %t; want %q", c.budget, r.Note, r.Comparison != nil, c.note)
		}
	}
}
