package comment_test

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/internal/github/comment"
)

func TestComposeAddsMarkerOnce(t *testing.T) {
	if got := comment.Compose("", "body"); got != comment.DefaultMarker+"\nbody" {
		t.Errorf("Compose: %q", got)
	}
	if got := comment.Compose("<!-- x -->", "<!-- x -->\nb"); got != "<!-- x -->\nb" {
		t.Errorf("marker already on the first line: %q", got)
	}
	// the marker elsewhere (a report quoting a trace that holds it) does not mark the body
	if got := comment.Compose("<!-- x -->", "a <!-- x --> b"); got != "<!-- x -->\na <!-- x --> b" {
		t.Errorf("marker inside the body: %q", got)
	}
}

func TestMarkedOnlyOnTheFirstLine(t *testing.T) {
	const m = comment.DefaultMarker
	for body, want := range map[string]bool{
		m:                           true,
		m + "\nreport":              true,
		m + "\r\nreport":            true, // edited in GitHub's web editor
		m + "  \nreport":            true,
		"":                          false,
		"x" + m + "\nreport":        false,
		" " + m + "\nreport":        false,
		"> " + m + "\nquoted":       false,
		"quoting the PR:\n" + m:     false,
		m + "x\nreport":             false,
		"<!-- agentgate:report":     false,
		"<!-- AGENTGATE:REPORT -->": false,
	} {
		if got := comment.Marked(m, body); got != want {
			t.Errorf("Marked(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestFitCutsAtLineBoundary(t *testing.T) {
	s := strings.Repeat("0123456789\n", 100) // 1100 chars
	if comment.Fit(s, 1100) != s {
		t.Error("a body at the limit was changed")
	}
	got := comment.Fit(s, 600)
	if comment.Chars(got) > 600 {
		t.Fatalf("%d chars, limit 600", comment.Chars(got))
	}
	kept, note, ok := strings.Cut(got, "\n\n> [!NOTE]")
	if !ok || !strings.Contains(note, "cut to fit") {
		t.Fatalf("no note: %q", got)
	}
	if kept != strings.Repeat("0123456789\n", len(kept)/11)[:len(kept)] || !strings.HasSuffix(kept, "\n") {
		t.Errorf("not cut at a line boundary: %q", kept[len(kept)-20:])
	}
	// The largest number of whole lines that leaves room for the note.
	if extra := comment.Chars(kept) + 11 + comment.Chars(got[len(kept):]); extra <= 600-5 {
		t.Errorf("cut too early: one more line would fit (%d)", extra)
	}
}

func TestFitClosesAnOpenFenceAndCountsUTF16(t *testing.T) {
	s := "head\n```\n" + strings.Repeat("🟥 line in code\n", 200)
	got := comment.Fit(s, 1000)
	if n := comment.Chars(got); n > 1000 {
		t.Fatalf("%d UTF-16 units, limit 1000", n)
	}
	kept, _, _ := strings.Cut(got, "\n\n> [!NOTE]")
	if !strings.HasSuffix(kept, "\n```\n") && !strings.HasSuffix(kept, "\n```") {
		t.Errorf("open code fence not closed: %q", kept[len(kept)-30:])
	}
	if comment.Chars("🟥") != 2 || comment.Chars("é") != 1 {
		t.Error("Chars does not count UTF-16 units")
	}
	// One line longer than the limit: cut at a character boundary.
	long := strings.Repeat("é", 5000)
	got = comment.Fit(long, 1000)
	if comment.Chars(got) > 1000 || !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("long line: %d chars, %q", comment.Chars(got), got[:10])
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{"": "update", "update": "update", " Recreate ": "recreate"} {
		if got, err := comment.ParseMode(in); got != want || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := comment.ParseMode("upsert"); err == nil {
		t.Error("ParseMode accepted upsert")
	}
}
