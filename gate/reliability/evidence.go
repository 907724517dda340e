package reliability

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate/trace"
)

// Limits that keep evidence readable and the report bounded on huge traces.
const (
	maxArgs     = 60 // characters of arguments quoted in evidence
	maxListed   = 10 // message indices written out in one evidence text
	maxMessages = 50 // message indices kept in one Evidence.Messages
	maxItems    = 5  // evidence items per finding before the rest are summarised
)

// shortArgs renders a call's arguments for evidence: compact JSON (or the raw text when it is
// not JSON), control characters as spaces, cut to maxArgs characters with "…".
func shortArgs(c *trace.Call) string {
	if len(c.Args) == 0 {
		return "{}"
	}
	text := c.Args
	if c.Attachments != nil {
		// compact as read; the attachments they name expanded as far as evidence quotes them
		text = c.ExpandedArgs(4*maxArgs + 4)
	} else if c.ArgsValid {
		var buf bytes.Buffer
		if json.Compact(&buf, c.Args) == nil {
			text = buf.Bytes()
		}
	}
	return shorten(string(text), maxArgs)
}

// shorten cuts s to at most n characters, ending in "…" when cut, and turns control
// characters (newlines included) into spaces so that evidence stays on one line.
func shorten(s string, n int) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*n))
	count := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if count == n-1 && i < len(s) {
			b.WriteString("…")
			return b.String()
		}
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// messages formats "message 3" or "messages 3, 5, 9", listing at most maxListed indices.
func messages(idx []int) string {
	switch len(idx) {
	case 0:
		return "no message"
	case 1:
		return "message " + strconv.Itoa(idx[0])
	}
	var b strings.Builder
	b.Grow(10 + 5*min(len(idx), maxListed+1))
	b.WriteString("messages ")
	for i, m := range idx {
		if i == maxListed {
			b.WriteString(", … (" + strconv.Itoa(len(idx)-maxListed) + " more)")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(m))
	}
	return b.String()
}

// keep returns the indices to store in Evidence.Messages: sorted, without repeats, at most
// maxMessages of them, never nil.
func keep(idx []int) []int {
	out := slices.Clone(idx)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxMessages {
		out = out[:maxMessages]
	}
	if out == nil {
		out = []int{}
	}
	return out
}

// toolItem is one occurrence of a tool at a message, for "`a` at messages 1, 2; `b` at message 4".
type toolItem struct {
	tool string
	msg  int
}

// byTool groups items by tool in order of first appearance: "`process` at messages 3, 3".
func byTool(items []toolItem) (string, []int) {
	if len(items) > 64 {
		return byToolMap(items)
	}
	all := make([]int, len(items))
	var b strings.Builder
	var at []int
	done := make([]bool, len(items))
	for i, it := range items { // in order of first appearance, so the text is deterministic
		all[i] = it.msg
		if done[i] {
			continue
		}
		at = at[:0]
		for j := i; j < len(items); j++ {
			if !done[j] && items[j].tool == it.tool {
				at = append(at, items[j].msg)
				done[j] = true
			}
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(toolName(it.tool))
		b.WriteString(" at ")
		b.WriteString(messages(at))
	}
	return b.String(), all
}

// byToolMap is byTool for long lists, through a map.
func byToolMap(items []toolItem) (string, []int) {
	var order []string
	at := make(map[string][]int, 4)
	all := make([]int, 0, len(items))
	for _, it := range items {
		if _, ok := at[it.tool]; !ok {
			order = append(order, it.tool)
		}
		at[it.tool] = append(at[it.tool], it.msg)
		all = append(all, it.msg)
	}
	parts := make([]string, len(order))
	for i, tool := range order { // order is first appearance, so the text is deterministic
		parts[i] = toolName(tool) + " at " + messages(at[tool])
	}
	return strings.Join(parts, "; "), all
}

// toolName quotes a tool name for evidence; an orphan result has none.
func toolName(tool string) string {
	if tool == "" {
		return "an unknown call"
	}
	return "`" + tool + "`"
}

// plural picks the singular or plural noun for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ranked collects a signal's evidence under the factor each piece explains. The report quotes
// a signal's first piece of evidence as the reason for its score, so the evidence of the
// largest factor comes first (ties keep the order found); within a factor, pieces are in
// message order.
type ranked struct {
	f  []float64
	ev [][]Evidence
}

// add files evidence under factor f.
func (r *ranked) add(f float64, ev ...Evidence) {
	r.f = append(r.f, f)
	r.ev = append(r.ev, ev)
}

// evidence returns everything filed, largest factor first.
func (r *ranked) evidence() []Evidence {
	idx := make([]int, len(r.f))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(r.f[b], r.f[a]) })
	var out []Evidence
	for _, i := range idx {
		sortEvidence(r.ev[i])
		out = append(out, r.ev[i]...)
	}
	return out
}

// sortEvidence orders a signal's evidence by the first message it names; evidence about the
// trace as a whole (no messages) comes first.
func sortEvidence(ev []Evidence) {
	first := func(e Evidence) int {
		if len(e.Messages) == 0 {
			return -1
		}
		return e.Messages[0]
	}
	slices.SortStableFunc(ev, func(a, b Evidence) int { return cmp.Compare(first(a), first(b)) })
}

// itemised turns per-item evidence into at most maxItems entries, summarising the rest in one
// more entry: "and 7 more calls never got a result".
func itemised(signal string, items []Evidence, rest string) []Evidence {
	if len(items) <= maxItems {
		return items
	}
	out := items[:maxItems:maxItems]
	var msgs []int
	floor := false
	for _, it := range items[maxItems:] {
		msgs = append(msgs, it.Messages...)
		floor = floor || it.Floor
	}
	kept := keep(msgs)
	return append(out, Evidence{Signal: signal,
		Text:     "and " + strconv.Itoa(len(items)-maxItems) + " more " + rest + " at " + messages(kept),
		Messages: kept, Floor: floor})
}
