package gensuite

import (
	"encoding/json"
	"fmt"
	"strings"
)

// loopArgs are the arguments of the looping call of fixtures/fail/traces.jsonl's first trace.
const loopArgs = `{"from": "BER", "to": "OSL", "date": "2026-12-12"}`

// LeakyLoops returns, one a line, a copy of loop (the first trace of fixtures/fail/traces.jsonl,
// whose call repeats) for each text, its repeated call's arguments {"cmd": "<text>; echo MARK"}
// and its id leak-0, leak-1, …: traces whose evidence quotes 60 characters of arguments that
// hold what an agent printed (a credential, in the redaction tests), and the text after it.
func LeakyLoops(loop string, texts []string) (string, error) {
	if strings.Count(loop, loopArgs) < 3 || !strings.Contains(loop, `"flight-search-loop-101"`) {
		return "", fmt.Errorf("the fixture's loop changed: %.200s", loop)
	}
	var b strings.Builder
	for i, text := range texts {
		cmd, err := json.Marshal(map[string]string{"cmd": text + "; echo MARK"})
		if err != nil {
			return "", err
		}
		line := strings.ReplaceAll(loop, loopArgs, string(cmd))
		b.WriteString(strings.Replace(line, `"flight-search-loop-101"`, fmt.Sprintf(`"leak-%d"`, i), 1) + "\n")
	}
	return b.String(), nil
}
