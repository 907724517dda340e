package report

import (
	"strings"
	"testing"
)

func TestTextGolden(t *testing.T) {
	for name, r := range map[string]func() string{
		"fail.txt": func() string { var b strings.Builder; Text(&b, failingResult()); return b.String() },
		"warn.txt": func() string { var b strings.Builder; Text(&b, warnResult()); return b.String() },
		"pass.txt": func() string { var b strings.Builder; Text(&b, passingResult()); return b.String() },
		"trace.txt": func() string {
			var b strings.Builder
			for _, tr := range failingResult().Reliability.Traces[:4] {
				if err := TraceText(&b, tr); err != nil {
					t.Fatal(err)
				}
			}
			return b.String()
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := r()
			golden(t, name, got)
			for _, md := range []string{"| ", "|:-", "**", "##", "<details>", "\\`", "&lt;"} {
				if strings.Contains(got, md) {
					t.Errorf("terminal summary holds markdown %q", md)
				}
			}
		})
	}
}

// No control character from an input file reaches the terminal.
func TestTextStripsControlCharacters(t *testing.T) {
	r := failingResult()
	r.Reliability.Traces[0].ID = "x\x1b]0;pwned\x07\x1b[2Jy"
	r.Reliability.Traces[0].Evidence[0].Text = "loop\r\nfake line"
	var b strings.Builder
	Text(&b, r)
	if strings.ContainsAny(b.String(), "\x1b\x07\r") || strings.Contains(b.String(), "\nfake line") {
		t.Errorf("control characters reached the output:\n%q", b.String())
	}
	if !strings.Contains(b.String(), "x ]0;pwned [2Jy") {
		t.Errorf("id not shown flattened:\n%s", b.String())
	}
	b.Reset()
	Text(&b, nil)
	if b.String() != "agentgate: no result\n" {
		t.Errorf("Text(nil) = %q", b.String())
	}
}

func TestTextWriteError(t *testing.T) {
	if err := Text(failWriter{}, failingResult()); err == nil {
		t.Errorf("Text: write error not returned")
	}
	if err := TraceText(failWriter{}, failingResult().Reliability.Traces[0]); err == nil {
		t.Errorf("TraceText: write error not returned")
	}
}
