package actions_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/github/actions"
	"github.com/sethvargo/go-githubactions"
)

const z = "\u200b"

func TestNeutralize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n", "plain text\n"},
		{"run-1 ##[stop-commands]x", "run-1 ##" + z + "[stop-commands]x"},
		{"###[x] ##[y]", "###" + z + "[x] ##" + z + "[y]"},
		{"::error::x", ":" + z + ":error::x"},
		{"key\n::add-mask::x\n", "key\n:" + z + ":add-mask::x\n"},
		{"a\r::error::x", "a\r:" + z + ":error::x"},
		{"a\r\n  \t::warning::x", "a\r\n  \t:" + z + ":warning::x"},
		{"\u00a0\u2003\ufeff::error::x", "\u00a0\u2003\ufeff:" + z + ":error::x"},
		{"std::vector ::x", "std::vector ::x"},
		{":x::y", ":x::y"},
	} {
		if got := actions.Neutralize(tc.in, false); got != tc.want {
			t.Errorf("Neutralize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := actions.Neutralize("::x", true); got != "::x" {
		t.Errorf("continued line: %q", got)
	}
}

// commandLines returns the lines of out the runner would act on: those that
// start with "::" after leading white space, and those holding "##[".
func commandLines(out string) []string {
	var cmds []string
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimLeft(l, " \t\u00a0"), "::") || strings.Contains(l, "##[") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// Untrusted text split across writes at every byte, with the library's
// commands in between, yields exactly the library's commands.
func TestGuardSplitWritesAndCommands(t *testing.T) {
	text := "trace run-1 ##[stop-commands]x FAIL\nfound keys: \"a\n::error::x\", \"b\r::add-mask::x\"\npartial ##"
	tail := "[set-output name=v]y\n"
	for cut := 0; cut <= len(text); cut++ {
		var out bytes.Buffer
		g := actions.NewGuard(&out)
		a := githubactions.New(githubactions.WithWriter(g.Commands()), githubactions.WithGetenv(func(string) string { return "" }))
		fmt.Fprint(g, text[:cut])
		a.Errorf("a\n::error::b ##[stop-commands]c")
		fmt.Fprint(g, text[cut:])
		fmt.Fprint(g, tail)
		if err := g.Flush(); err != nil {
			t.Fatal(err)
		}
		got := commandLines(out.String())
		if len(got) != 1 || got[0] != "::error::a%0A::error::b ##[stop-commands]c" {
			t.Fatalf("cut %d: command lines %q in\n%s", cut, got, out.String())
		}
	}
}

func TestGuardExactOutput(t *testing.T) {
	var out bytes.Buffer
	g := actions.NewGuard(&out)
	a := githubactions.New(githubactions.WithWriter(g.Commands()), githubactions.WithGetenv(func(string) string { return "" }))
	fmt.Fprint(g, "reliability: 1 FAIL\n  run-1 ##[stop-commands]x  FAIL\nno newline")
	a.AddMask("s3cret")
	fmt.Fprint(g, "::error::after flush")
	g.Flush()
	want := "reliability: 1 FAIL\n" +
		"  run-1 ##" + z + "[stop-commands]x  FAIL\n" +
		"no newline\n" +
		"::add-mask::s3cret\n" +
		":" + z + ":error::after flush"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
}
