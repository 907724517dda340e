package report

import (
	"strings"
	"testing"
)

func TestEscapeCell(t *testing.T) {
	long := strings.Repeat("x", 250)
	for _, c := range []struct{ name, in, want string }{
		{"everything at once", evilID, "a\\|b\\`&lt;img src=x&gt;@\u200boctocat next"},
		{"plain id", "refund-017", "refund-017"},
		{"pipe", "a|b", "a\\|b"},
		{"backtick", "`search`", "\\`search\\`"},
		{"html", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"entity", "AT&T &lt;", "AT&amp;T &amp;lt;"},
		{"backslash before pipe", `a\|b`, `a\\\|b`},
		{"link and image", "![x](http://t) [y](http://e)", "!\\[x\\](http:\u200b//t) \\[y\\](http:\u200b//e)"},
		{"GH- reference", "GH-123, gh-7, GH-x, UGH-1, xgh-2", "GH-\u200b123, gh-\u200b7, GH-x, UGH-1, xgh-2"},
		{"bare URLs", "see https://evil.example/x, HTTP://a.b and www.evil.example", "see https:\u200b//evil.example/x, HTTP:\u200b//a.b and www\u200b.evil.example"},
		{"not URLs", "xhttp://a awww.b ftp: http:x", "xhttp://a awww.b ftp: http:x"},
		{"emoji shortcodes", ":shipit: :+1: a:b :x-y_z: :: : :", ":\u200bshipit: :\u200b+1: a:b :\u200bx-y_z: :: : :"},
		{"chained shortcodes", ":a:b:", ":\u200ba:\u200bb:"},
		{"mention", "@octocat and @org/team", "@\u200boctocat and @\u200borg/team"},
		{"email", "me@example.com", "me@\u200bexample.com"},
		{"issue reference", "#12, org/repo#3, #tag", "#\u200b12, org/repo#\u200b3, #tag"},
		{"crlf", "line1\r\nline2\n\nline3\r", "line1 line2 line3"},
		{"unicode line breaks", "a\u2028b\u2029c\u0085d\ve\ff", "a b c d e f"},
		{"tabs and runs of spaces", "\ta\t\tb   c ", "a b c"},
		{"ansi escape", "\x1b[31mred\x1b[0m", "\\[31mred \\[0m"},
		{"bidi override", "abc\u202edcba\u202c", "abcdcba"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"empty", "", ""},
		{"only white space", " \n\t ", ""},
		{"200 characters are kept", long[:200], long[:200]},
		{"201 are cut", long[:201], long[:199] + "…"},
		{"cut before escaping", strings.Repeat("<", 250), strings.Repeat("&lt;", 199) + "…"},
		{"cut at a character", strings.Repeat("é", 250), strings.Repeat("é", 199) + "…"},
		{"no trailing space before the cut", strings.Repeat("x", 198) + " yz", strings.Repeat("x", 198) + "…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := EscapeCell(c.in); got != c.want {
				t.Errorf("EscapeCell(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

// An escaped cell stays one cell of one row.
func TestEscapeCellInTable(t *testing.T) {
	for _, in := range []string{evilID, "a\r\nb|c", `x\`, "`", "a\\|b"} {
		var b strings.Builder
		writeTable(&b, []column{{"id", "left"}, {"n", "right"}}, [][]string{{EscapeCell(in), "1"}})
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Errorf("%q: %d lines:\n%s", in, len(lines), b.String())
			continue
		}
		if c := cells(lines[2]); len(c) != 2 || strings.TrimSpace(c[1]) != "1" {
			t.Errorf("%q: row %q splits into %q", in, lines[2], c)
		}
	}
}

func TestPlain(t *testing.T) {
	if got, want := plain("\x1b[2J<b>|`@x\n#1\u202e", 0), "[2J<b>|`@x #1"; got != want {
		t.Errorf("plain = %q, want %q", got, want)
	}
	if got, want := plain("abcdef", 4), "abc…"; got != want {
		t.Errorf("plain cut = %q, want %q", got, want)
	}
}

func FuzzEscapeCell(f *testing.F) {
	for _, s := range []string{evilID, "a\r\nb", "\\|", "@x", "#1", "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := EscapeCell(s)
		if strings.ContainsAny(got, "\n\r<>") {
			t.Fatalf("EscapeCell(%q) = %q holds a line break or angle bracket", s, got)
		}
		// Every pipe is escaped by an odd number of backslashes.
		if c := cells("|" + got + "|"); len(c) != 1 {
			t.Fatalf("EscapeCell(%q) = %q splits into %d cells", s, got, len(c))
		}
		if strings.Contains(strings.ReplaceAll(got, "@\u200b", ""), "@") {
			t.Fatalf("EscapeCell(%q) = %q holds a live @", s, got)
		}
	})
}
