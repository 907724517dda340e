package report

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/agreement"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
)

// Size limits of the places the markdown report goes.
const (
	// GitHubCommentLimit is the most characters GitHub accepts in an issue or PR comment body.
	GitHubCommentLimit = 65536
	// CommentReserve is left free in a comment for what the comment layer adds around the
	// report: the hidden marker and, on fork PRs, a line of explanation.
	CommentReserve = 2048
	// CommentMaxBytes bounds a report meant for the PR comment. Bytes are never fewer than
	// the characters (or UTF-16 code units) GitHub counts, so a byte budget is safe.
	CommentMaxBytes = GitHubCommentLimit - CommentReserve
	// SummaryLimit is the most the runner accepts as one step's job summary (1 MiB).
	SummaryLimit = 1 << 20
	// SummaryMaxBytes bounds a report meant for the job summary, leaving room for a few
	// lines the caller may add.
	SummaryMaxBytes = SummaryLimit - 16<<10
)

// VisibleRows is how many rows of a long table stay visible; the rest collapse into a
// <details> block.
const VisibleRows = 10

// DefaultLowestTasks is how many of the lowest-coherence tasks the report lists by default.
const DefaultLowestTasks = 10

// Options tunes Markdown.
type Options struct {
	// MaxBytes bounds the report's length in bytes: CommentMaxBytes for the PR comment,
	// SummaryMaxBytes for the job summary. 0 means CommentMaxBytes; a negative value means
	// no limit. When the report is too long, long tables are cut at a row boundary and say
	// how many rows were left out.
	MaxBytes int
	// Reproduce is the command line that gives the same answer locally, shown in the footer,
	// e.g. "agentgate gate --traces 'evals/*.jsonl' --profile default". Empty means a generic
	// command naming the inputs that ran and the profile.
	Reproduce string
	// FullReport completes "… 1,234 more traces not shown: see …" when a table is cut, in
	// markdown, e.g. "the job summary or the JSON report". Empty means "the JSON report
	// (`agentgate gate --json FILE`)".
	FullReport string
	// LowestTasks is how many of the lowest-coherence tasks to list; 0 means
	// DefaultLowestTasks.
	LowestTasks int
}

// rowList is a table whose rows can be cut when the report is too long. Its rows are built
// in table order as they are first needed, so a report cut to a size limit escapes no more rows
// than it can show (see doc.fit), however many the table has.
type rowList struct {
	cols []column
	noun string // what a row is, plural: "non-PASS traces"

	// n is how many rows the table has. open returns a function that builds them one by one,
	// in table order, from the first; open is nil when rows holds them all from the start.
	n    int
	open func() func() []string
	next func() []string // what open returned, building rows past those built
	rows [][]string      // escaped cells of the rows built so far, the first of the table

	// Display widths of the headers and cells, measured on first use by size.
	headWidths []int
	widths     [][]int
}

// len returns how many rows the table has.
func (l *rowList) len() int {
	if l.open == nil {
		return len(l.rows)
	}
	return l.n
}

// first returns the first k rows (k ≤ l.len()), building those not built yet.
func (l *rowList) first(k int) [][]string {
	if len(l.rows) < k && l.next == nil {
		l.next = l.open()
	}
	for len(l.rows) < k {
		l.rows = append(l.rows, l.next())
	}
	return l.rows[:k]
}

// each calls f with the rows from from to to in order, building them anew rather than keeping
// them when they are not built yet.
func (l *rowList) each(from, to int, f func([]string)) {
	i := from
	for ; i < min(to, len(l.rows)); i++ {
		f(l.rows[i])
	}
	if i == to {
		return
	}
	next := l.open()
	for range i {
		next()
	}
	for ; i < to; i++ {
		f(next())
	}
}

// measure measures the display widths of the headers and of the first k rows' cells.
func (l *rowList) measure(k int) {
	rows := l.first(k)
	if l.headWidths == nil && k > 0 {
		l.headWidths = make([]int, len(l.cols))
		for c, col := range l.cols {
			l.headWidths[c] = twwidth.Width(col.head)
		}
	}
	for i := len(l.widths); i < k; i++ {
		w := make([]int, len(l.cols))
		for c := range l.cols {
			if c < len(rows[i]) {
				w[c] = twwidth.Width(rows[i][c])
			}
		}
		l.widths = append(l.widths, w)
	}
}

// size predicts how many bytes writeList writes for the first k rows (k ≤ l.len()).
func (l *rowList) size(k int, fullReport string) int {
	l.measure(k)
	heads := make([]string, len(l.cols))
	for c, col := range l.cols {
		heads[c] = col.head
	}
	visible := min(k, VisibleRows)
	size := len(note(l.len(), k, l.noun, fullReport))
	if visible > 0 {
		size += tableSize(heads, l.headWidths, l.rows[:visible], l.widths[:visible])
	}
	if k > visible {
		size += len(detailsOpen(k-visible, l.noun)) + tableSize(heads, l.headWidths, l.rows[visible:k], l.widths[visible:k]) + len(detailsClose)
	}
	return size
}

// rowFloor is the fewest bytes tableSize counts for row's line: its cells' bytes, two spaces
// and a pipe for each column, the line's first pipe and its newline. (A column is at least
// two wider than its cells, and a cell's padding makes up the difference between its width
// and the column's.)
func rowFloor(row []string, cols int) int {
	n := 2
	for c := range cols {
		n += 3
		if c < len(row) {
			n += len(row[c])
		}
	}
	return n
}

// doc is a report being laid out: everything escaped once, rendered as often as fitting the
// size limit takes.
type doc struct {
	r          *gate.Result
	o          Options
	traces     rowList
	tasks      rowList
	unmatched  rowList
	disagree   rowList
	flagged    rowList // items both validators labelled alike that a hard flag still rejects
	newFail    rowList // the comparison's new failures
	fixed      rowList // the comparison's fixed traces
	flips      rowList // the comparison's FINAL flips
	fullReport string
	// over is the fewest rows per table that a report cut to its limit certainly cannot show;
	// more than any table has when there is none; 0 until fit sets it. See bound.
	over int
}

// Markdown renders r as the markdown report for the PR comment, the job summary and
// `--markdown FILE`: the verdict and one sentence saying why, the gate table, the traces that
// did not pass, the lowest-coherence tasks, the validators' agreement and disagreements, and
// a footer with the profile and the command that reproduces the run. Untrusted text is escaped
// with EscapeCell. The result is at most o.MaxBytes long and the same bytes for the same
// input.
func Markdown(r *gate.Result, o Options) string {
	limit := o.MaxBytes
	if limit == 0 {
		limit = CommentMaxBytes
	}
	if r == nil {
		return fitPlain("## ❔ agentgate: no result\nThe run produced no result to report.\n", limit)
	}
	d := newDoc(r, o)
	if limit < 0 {
		return d.render(math.MaxInt)
	}
	return d.fit(limit)
}

// newDoc escapes everything the report may show.
func newDoc(r *gate.Result, o Options) *doc {
	d := &doc{r: r, o: o, fullReport: o.FullReport}
	if d.fullReport == "" {
		d.fullReport = "the JSON report (`agentgate gate --json FILE`)"
	}
	if s := r.Reliability; s != nil {
		d.traces = rowList{noun: "non-PASS traces", cols: []column{
			{"trace", tw.AlignLeft}, {"location", tw.AlignLeft}, {"verdict", tw.AlignLeft},
			{"score", tw.AlignRight}, {"strongest signal", tw.AlignLeft}, {"evidence", tw.AlignLeft},
		}}
		d.traces.n = countFlagged(s.Traces)
		d.traces.open = func() func() []string {
			q := newTraceQueue(s.Traces)
			return func() []string { return traceRow(r, q.pop()) }
		}
	}
	if s := r.Coherence; s != nil {
		n := o.LowestTasks
		if n <= 0 {
			n = DefaultLowestTasks
		}
		low := lowest(s, n)
		d.tasks = rowList{noun: "lowest-coherence tasks", cols: []column{
			{"task", tw.AlignLeft}, {"location", tw.AlignLeft}, {"rcs", tw.AlignRight},
		}}
		withNote := false
		for _, t := range low {
			withNote = withNote || t.Note != ""
		}
		if withNote {
			d.tasks.cols = append(d.tasks.cols, column{"note", tw.AlignLeft})
		}
		for _, t := range low {
			row := []string{CodeCell(t.ID), orDash(EscapeCell(location(t.File, t.Line))), num(t.RCS)}
			if withNote {
				row = append(row, EscapeCell(t.Note))
			}
			d.tasks.rows = append(d.tasks.rows, row)
		}
	}
	if s := r.Agreement; s != nil {
		d.unmatched = rowList{noun: "unmatched qids", cols: []column{
			{"qid", tw.AlignLeft}, {"only in", tw.AlignLeft}, {"location", tw.AlignLeft},
		}}
		d.unmatched.n, d.unmatched.open = len(s.Unmatched), func() func() []string {
			i := 0
			return func() []string {
				u := &s.Unmatched[i]
				i++
				return []string{CodeCell(u.QID), EscapeCell(u.OnlyIn), orDash(EscapeCell(location(u.File, u.Line)))}
			}
		}
		d.disagree = rowList{noun: "disagreements", cols: []column{
			{"qid", tw.AlignLeft}, {"scholar", tw.AlignLeft}, {"auditor", tw.AlignLeft},
			{"final", tw.AlignLeft}, {"why", tw.AlignLeft},
		}}
		d.disagree.n, d.disagree.open = itemRows(s.Items, func(it *agreement.Item) bool { return it.Scholar != it.Auditor },
			func(it *agreement.Item) []string {
				return []string{
					CodeCell(it.QID), EscapeCell(it.Scholar), EscapeCell(it.Auditor),
					"**" + EscapeCell(it.Final) + "**", EscapeCell(it.Why),
				}
			})
		d.flagged = rowList{noun: "flagged items", cols: []column{
			{"qid", tw.AlignLeft}, {"both validators said", tw.AlignLeft}, {"final", tw.AlignLeft}, {"why", tw.AlignLeft},
		}}
		d.flagged.n, d.flagged.open = itemRows(s.Items, func(it *agreement.Item) bool {
			return it.Scholar == it.Auditor && it.Final != it.Auditor && agreement.IsHardFlag(it.Why)
		}, func(it *agreement.Item) []string {
			return []string{CodeCell(it.QID), EscapeCell(it.Scholar), "**" + EscapeCell(it.Final) + "**", EscapeCell(it.Why)}
		})
	}
	d.initComparison()
	return d
}

// lists returns the cuttable tables.
func (d *doc) lists() []*rowList {
	return []*rowList{&d.traces, &d.tasks, &d.unmatched, &d.disagree, &d.flagged, &d.newFail, &d.fixed, &d.flips}
}

// traceRow is the row of a trace that did not pass, named as every list of the report names it
// (runLabel).
func traceRow(r *gate.Result, t *reliability.Result) []string {
	signal, evidence := findingCells(t)
	return []string{
		CodeCell(runLabel(r, t)), orDash(EscapeCell(location(t.File, t.Line))),
		verdictCell(t.Verdict), num(t.Score), signal, evidence,
	}
}

// itemRows returns how many items keep selects and a function that returns a function that
// returns the row of the next of them, in input order, on each call.
func itemRows(items agreement.Items, keep func(*agreement.Item) bool, row func(*agreement.Item) []string) (int, func() func() []string) {
	n := 0
	for _, it := range items.All() {
		if keep(&it) {
			n++
		}
	}
	return n, func() func() []string {
		i := 0
		return func() []string {
			for ; i < items.Len(); i++ {
				if it := items.At(i); keep(&it) {
					i++
					return row(&it)
				}
			}
			return nil
		}
	}
}

// countFlagged returns how many traces did not pass.
func countFlagged(traces []reliability.Result) int {
	n := 0
	for i := range traces {
		if traces[i].Verdict != verdict.Pass {
			n++
		}
	}
	return n
}

// traceQueue hands out the traces that did not pass in the order flagged lists them (FAIL
// first, then by score descending, then by id, file and line, equal traces in input order),
// sorting no more of them than are taken: a binary heap of their indices, built in linear
// time, popped in logarithmic time.
type traceQueue struct {
	traces []reliability.Result
	heap   []int
}

func newTraceQueue(traces []reliability.Result) *traceQueue {
	q := &traceQueue{traces: traces, heap: make([]int, 0, countFlagged(traces))}
	for i := range traces {
		if traces[i].Verdict != verdict.Pass {
			q.heap = append(q.heap, i)
		}
	}
	for i := len(q.heap)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	return q
}

// len returns how many traces are left.
func (q *traceQueue) len() int { return len(q.heap) }

// pop removes and returns the first trace left; q.len() must not be 0.
func (q *traceQueue) pop() *reliability.Result {
	first := q.heap[0]
	last := len(q.heap) - 1
	q.heap[0] = q.heap[last]
	q.heap = q.heap[:last]
	q.down(0)
	return &q.traces[first]
}

// down moves the index at heap position i down to its place.
func (q *traceQueue) down(i int) {
	h := q.heap
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && q.before(h[c+1], h[c]) {
			c++
		}
		if !q.before(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// before tells whether trace i comes before trace j: flagged's order, then input order.
func (q *traceQueue) before(i, j int) bool {
	a, b := &q.traces[i], &q.traces[j]
	if c := cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(b.Score, a.Score); c != 0 { // descending; NaN last
		return c < 0
	}
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(a.File, b.File); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c < 0
	}
	return i < j
}

// fit returns the report with the largest per-table row cap that keeps it within limit bytes.
// Rendering thousands of rows with tablewriter is slow, so the cap is first predicted from a
// model of the tables' size (exact for tablewriter v1.1.5; see TestTableSizeModel), then
// checked with real renderings, which alone decide.
//
// The prediction looks at no row that cannot fit: once the first k rows of the tables take
// more room than the limit leaves in their cells, pipes and spaces alone, a cap of k or more
// is predicted too large without measuring them (see bound). The caps predicted to fit, and so
// the renderings, are those of a fit that built every row, and so is the report; no table
// builds more rows than the limit has room for, and one more.
func (d *doc) fit(limit int) string {
	base := d.render(0)
	if len(base) > limit {
		return d.compact(limit)
	}
	longest := 0
	for _, l := range d.lists() {
		longest = max(longest, l.len())
	}
	if longest == 0 {
		return base
	}
	// The room left for rows, as predict counts it: the limit less the report without them,
	// plus the notes in it that say every row was left out, which predict takes off.
	room := limit - len(base)
	for _, l := range d.lists() {
		room += l.size(0, d.fullReport)
	}
	d.bound(room)
	// The predicted size of the report with k rows per table, or math.MaxInt when it is
	// certainly more than limit.
	predict := func(k int) int {
		if d.overflows(k) {
			return math.MaxInt
		}
		size := len(base)
		for _, l := range d.lists() {
			size += l.size(min(k, l.len()), d.fullReport) - l.size(0, d.fullReport)
		}
		return size
	}
	k := search(0, longest+1, func(k int) bool { return predict(k) <= limit })
	cache := map[int]string{0: base}
	rendered := func(k int) string {
		s, ok := cache[k]
		if !ok {
			s = d.render(k)
			cache[k] = s
		}
		return s
	}
	fits := func(k int) bool { return len(rendered(k)) <= limit }
	switch {
	case !fits(k):
		k = search(0, k, fits)
	case k < longest && fits(k+1):
		k = search(k+1, longest+1, fits)
	}
	return rendered(k)
}

// bound sets d.over for a report with room bytes to spare for its tables' rows: the fewest rows
// per table whose floors (see rowFloor) add up to more than room. It builds the rows that
// takes, and no more.
//
// With d.over rows per table or more, the predicted report is longer than its limit: the
// tables' sizes are at least their rows' floors, and the rest of the report at least its
// length without rows less the notes that say every row was left out, which room adds back.
func (d *doc) bound(room int) {
	longest := 0
	for _, l := range d.lists() {
		longest = max(longest, l.len())
	}
	d.over = longest + 1
	sum := 0
	for k := range longest {
		for _, l := range d.lists() {
			if k < l.len() {
				sum += rowFloor(l.first(k + 1)[k], len(l.cols))
			}
		}
		if sum > room {
			d.over = k + 1
			return
		}
	}
}

// overflows tells whether a report showing k rows per table is certainly predicted to pass the
// limit bound was given room for.
func (d *doc) overflows(k int) bool { return d.over > 0 && k >= d.over }

// search returns the largest k in [lo, hi) with ok(k), given ok(lo) and not ok(hi) (hi is never
// evaluated). When ok is not monotonic it still returns a k with ok(k).
func search(lo, hi int, ok func(int) bool) int {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// render lays out the whole report with at most k rows per cuttable table.
func (d *doc) render(k int) string {
	var b strings.Builder
	compared := d.writeHead(&b)
	d.writeTrend(&b)
	d.writeChanges(&b, k)
	d.writeFlakyOver(&b)
	d.writeGates(&b, compared)
	d.writeComparisonDetails(&b)
	// A run's own outcome is the primary measure (docs/design.md#outcomes): the success rate first, then what
	// the evaluators say about the runs.
	d.writeOutcomes(&b)
	d.writeReliability(&b, k)
	d.writePassK(&b)
	d.writeCoherence(&b, k)
	d.writeAgreement(&b, k)
	d.writeFooter(&b)
	return b.String()
}

// compact is the report when not even the headings and fixed tables fit: the verdict, the
// sentence, the comparison's table and the gate table, then a pointer to the full report, cut
// to limit bytes as a last resort.
func (d *doc) compact(limit int) string {
	var b strings.Builder
	d.writeGates(&b, d.writeHead(&b))
	fmt.Fprintf(&b, "\nThe rest of the report does not fit here: see %s.\n", d.fullReport)
	return fitPlain(b.String(), limit)
}

// fitPlain cuts s to at most limit bytes at the last blank line that fits, so no table or
// paragraph is cut; failing that, at the last line break (the title alone), or at a character
// boundary. Only reports that cannot fit their headings come here.
func fitPlain(s string, limit int) string {
	if limit < 0 || len(s) <= limit {
		return s
	}
	cut := s[:limit]
	if i := strings.LastIndex(cut, "\n\n"); i > 0 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		return cut[:i+1]
	}
	for !utf8.ValidString(cut) && len(cut) > 0 {
		cut = cut[:len(cut)-1]
	}
	return cut
}

// writeHead writes the title with the verdict and the check's state, the sentence that says
// why, and the comparison with the baseline (its table); it reports whether it wrote a
// comparison.
func (d *doc) writeHead(b *strings.Builder) bool {
	r := d.r
	fmt.Fprintf(b, "## %s, %s%s\n", title(r.Verdict), checkState(r), successClause(r))
	b.WriteString(sentence(r, EscapeCell))
	b.WriteString("\n\n")
	if r.IdentityNote != "" {
		fmt.Fprintf(b, "> ℹ️ %s\n\n", escapeMarkdown(r.IdentityNote, maxProseRunes))
	}
	return d.writeComparison(b)
}

// writeGates writes the gate table, under its own heading after a comparison.
func (d *doc) writeGates(b *strings.Builder, compared bool) {
	r := d.r
	if len(r.Gates) == 0 {
		return
	}
	if compared {
		b.WriteString("\n### Gates\n\n")
	}
	cols := []column{{"gate", tw.AlignLeft}, {"value", tw.AlignRight}, {"threshold", tw.AlignLeft}, {"status", tw.AlignLeft}}
	withNote := false
	for _, g := range r.Gates {
		withNote = withNote || g.Note != ""
	}
	if withNote {
		cols = append(cols, column{"note", tw.AlignLeft})
	}
	rows := make([][]string, 0, len(r.Gates))
	for _, g := range r.Gates {
		value, status := gateValue(g), "✅ holds"
		switch {
		case g.Skipped:
			value, status = "—", "⏭️ skipped"
			if !g.Passed {
				status = "❌ **breached**: skipped, measured nothing (fail-on-skipped)"
			}
			if g.Name == gate.KappaMin && r.Agreement != nil && !r.Agreement.KappaDefined {
				value = "undefined"
			}
		case !g.Passed:
			status = "❌ **breached**"
		}
		row := []string{EscapeCell(g.Name), value, gateThreshold(g), status}
		if withNote {
			row = append(row, escapeMarkdown(g.Note, maxProseRunes))
		}
		rows = append(rows, row)
	}
	writeTable(b, cols, rows)
}

// title is the heading text: the verdict first, as the first thing read.
func title(v verdict.Verdict) string {
	emoji, word, _ := strings.Cut(verdictLabel(v, EscapeCell), " ")
	return emoji + " agentgate: " + word
}

// writeReliability writes the reliability section.
func (d *doc) writeReliability(b *strings.Builder, k int) {
	s := d.r.Reliability
	if s == nil {
		return
	}
	mark := d.mark(gate.MaxFailedTraces)
	if mark == "✅ " && s.Warn+s.Fail > 0 {
		mark = "⚠️ "
	}
	b.WriteString("\n### " + mark + "Reliability (RS-1): ")
	switch {
	case s.Total == 0:
		b.WriteString("no traces\n")
		d.writeNotes(b)
		return
	case d.traces.len() == 0:
		fmt.Fprintf(b, "%s\n", every(s.Total, "trace", "traces", "passes", "pass"))
		d.writeNotes(b)
		return
	}
	for _, c := range []struct {
		n    int
		word string
	}{{s.Fail, "FAIL"}, {s.Warn, "WARN"}} {
		if c.n > 0 {
			fmt.Fprintf(b, "%s %s, ", count(c.n), c.word)
		}
	}
	fmt.Fprintf(b, "%s PASS of %s\n", count(s.Pass), plural(s.Total, "trace", "traces"))
	d.writeNotes(b)
	b.WriteString("\nTraces that did not pass, FAIL first, then by score:\n\n")
	d.writeList(b, &d.traces, k)
}

// writeNotes writes the notes on what was read (docs/design.md#harness-folders), one line each, under the
// reliability heading.
func (d *doc) writeNotes(b *strings.Builder) {
	for _, n := range d.r.Notes {
		b.WriteString("\nℹ️ " + escapeMarkdown(n, maxProseRunes) + "\n")
	}
}

// mark is a section heading's status: "❌ " when one of the named gates is breached, "✅ "
// when the others hold and one of them measured something, "❔ " when each was skipped (asked
// for, it measured nothing), "" when none of them was asked for.
func (d *doc) mark(names ...string) string {
	held, skipped, breached := false, false, false
	for _, g := range d.r.Gates {
		for _, n := range names {
			if g.Name == n {
				held = held || (g.Passed && !g.Skipped)
				skipped = skipped || g.Skipped
				breached = breached || !g.Passed
			}
		}
	}
	switch {
	case breached:
		return "❌ "
	case held:
		return "✅ "
	case skipped:
		return "❔ " // asked for, and measured nothing
	}
	return ""
}

// writeCoherence writes the coherence section.
func (d *doc) writeCoherence(b *strings.Builder, k int) {
	s := d.r.Coherence
	if s == nil {
		return
	}
	fmt.Fprintf(b, "\n### %sCoherence (RCS): mean %s over %s\n", d.mark(gate.CoherenceMin), num(s.Mean), plural(s.Total, "task", "tasks"))
	if d.tasks.len() == 0 {
		return
	}
	if d.tasks.len() < len(s.Tasks) {
		fmt.Fprintf(b, "\nThe %s lowest of %s:\n\n", count(d.tasks.len()), plural(len(s.Tasks), "task", "tasks"))
	} else {
		b.WriteString("\nTasks, lowest first:\n\n")
	}
	d.writeList(b, &d.tasks, k)
}

// writeAgreement writes the agreement section.
func (d *doc) writeAgreement(b *strings.Builder, k int) {
	s := d.r.Agreement
	if s == nil {
		return
	}
	kappa := "κ undefined"
	if s.KappaDefined {
		kappa = "κ " + num(s.Kappa)
	}
	fmt.Fprintf(b, "\n### %sAgreement: %s, percent agreement %s, %s\n\n", d.mark(gate.PAMin, gate.KappaMin, gate.AbstainMax), plural(s.N, "item", "items"), num(s.PercentAgreement), kappa)
	band := "—"
	if s.Band != "" {
		band = EscapeCell(s.Band)
	}
	kmax := "undefined"
	if s.KappaDefined {
		kmax = num(s.KappaMax)
	}
	writeTable(b, []column{{"measure", tw.AlignLeft}, {"value", tw.AlignLeft}}, [][]string{
		{"items labelled by both validators", count(s.N)},
		{"percent agreement (PA)", num(s.PercentAgreement)},
		{"Cohen's κ", kappaText(s)},
		{"κ max", kmax},
		{"Gwet's AC1", fmt.Sprintf("%s (SE %s)", num(s.AC1), num(s.AC1SE))},
		{"PABAK", num(s.PABAK)},
		{"abstain rate", num(s.AbstainRate)},
		{"Landis–Koch band", band},
	})
	for _, w := range s.Warnings {
		fmt.Fprintf(b, "\n⚠️ **Warning:** %s\n", escapeMarkdown(w, maxProseRunes))
	}
	if s.N > 0 {
		b.WriteString("\n<details><summary>Confusion matrix (rows: scholar, columns: auditor)</summary>\n\n")
		cols := []column{{"scholar \\ auditor", tw.AlignLeft}}
		for _, l := range agreement.Labels {
			cols = append(cols, column{l, tw.AlignRight})
		}
		rows := make([][]string, len(agreement.Labels))
		for i, l := range agreement.Labels {
			rows[i] = []string{l}
			for j := range agreement.Labels {
				rows[i] = append(rows[i], count(s.Confusion[i][j]))
			}
		}
		writeTable(b, cols, rows)
		b.WriteString("\n</details>\n")
	}
	if n := len(s.Unmatched); n > 0 {
		fmt.Fprintf(b, "\n**%s labelled by one validator only** (not scored):\n\n", plural(n, "qid", "qids"))
		d.writeList(b, &d.unmatched, k)
	}
	if n := d.disagree.len(); n > 0 {
		fmt.Fprintf(b, "\n**%s** and their arbitration (final: the label that ships; why: the rule that decided it):\n\n", plural(n, "disagreement", "disagreements"))
		d.writeList(b, &d.disagree, k)
	} else if s.N > 0 {
		b.WriteString("\nNo disagreements: the validators gave every item the same label.\n")
	}
	if n := d.flagged.len(); n > 0 {
		verb := "are"
		if n == 1 {
			verb = "is"
		}
		fmt.Fprintf(b, "\n**%s both validators labelled alike %s rejected by a hard flag** (a provenance or constraints flag, or a citation outside the retrieved ids):\n\n", plural(n, "item", "items"), verb)
		d.writeList(b, &d.flagged, k)
	}
}

// writeList writes at most k rows of l: the first VisibleRows in a table, the rest collapsed in
// a <details> block, then a note when rows were cut. Rows not built yet (all but the first
// VisibleRows of an unlimited report) are built as they are written, not kept.
func (d *doc) writeList(b *strings.Builder, l *rowList, k int) {
	n := l.len()
	shown := min(n, max(k, 0))
	visible := min(shown, VisibleRows)
	if visible > 0 {
		writeTable(b, l.cols, l.first(visible))
	}
	if shown > visible {
		b.WriteString(detailsOpen(shown-visible, l.noun))
		writeLongTable(b, l, visible, shown)
		b.WriteString(detailsClose)
	}
	b.WriteString(note(n, shown, l.noun, d.fullReport))
}

// chunkRows is how many rows writeLongTable gives tablewriter at a time.
const chunkRows = 1024

// writeLongTable writes rows from to to of l as writeTable writes them, giving tablewriter
// chunkRows rows at a time: it holds several times a table's text while rendering it, which
// for the tens of thousands of rows of an unlimited report was most of the memory the report
// took. Rows not built yet are built twice, to measure and to write them, and not kept.
//
// tablewriter pads every column to its widest cell, so each chunk gets one more row whose cells
// are as wide as the widest of their column in the whole table; its line is dropped, as are
// the header and separator lines of every chunk but the first. Each row's line is then the one
// tablewriter writes for the whole table (TestWriteLongTable).
func writeLongTable(b *strings.Builder, l *rowList, from, to int) {
	chunk := make([][]string, 0, min(to-from, chunkRows)+1)
	if to-from <= chunkRows {
		l.each(from, to, func(row []string) { chunk = append(chunk, row) })
		writeTable(b, l.cols, chunk)
		return
	}
	heads := make([]string, len(l.cols))
	aligns := make(tw.Alignment, len(l.cols))
	widest := make([]int, len(l.cols))
	for c, col := range l.cols {
		heads[c], aligns[c] = col.head, col.align
		widest[c] = twwidth.Width(col.head)
	}
	l.each(from, to, func(row []string) {
		for c := range min(len(row), len(l.cols)) {
			widest[c] = max(widest[c], twwidth.Width(row[c]))
		}
	})
	pad := make([]string, len(l.cols))
	for c, w := range widest {
		pad[c] = strings.Repeat("x", w)
	}
	first := true
	flush := func() {
		out, err := renderTable(heads, aligns, append(chunk, pad))
		if err != nil {
			// As writeTable: tablewriter never fails on these rows, but the report must not
			// be lost if it does.
			out = writeTableByHand(heads, aligns, append(chunk, pad))
		}
		lines := out[:strings.LastIndexByte(out[:len(out)-1], '\n')+1] // without the padding row
		if !first {
			_, lines, _ = strings.Cut(lines, "\n") // without the header
			_, lines, _ = strings.Cut(lines, "\n") // and the separator
		}
		b.WriteString(lines)
		first, chunk = false, chunk[:0]
	}
	l.each(from, to, func(row []string) {
		if chunk = append(chunk, row); len(chunk) == chunkRows {
			flush()
		}
	})
	if len(chunk) > 0 {
		flush()
	}
}

// detailsOpen starts the <details> block that holds the rows after the first VisibleRows.
func detailsOpen(n int, noun string) string {
	return fmt.Sprintf("\n<details><summary>%s more %s</summary>\n\n", count(n), noun)
}

// detailsClose ends a <details> block.
const detailsClose = "\n</details>\n"

// note is the line that says how many rows of a table were cut, with the blank line that
// separates it from a table above; "" when none was.
func note(n, shown int, noun, fullReport string) string {
	switch {
	case shown >= n:
		return ""
	case shown == 0:
		return fmt.Sprintf("… %s %s not shown: see %s.\n", count(n), noun, fullReport)
	}
	return fmt.Sprintf("\n… %s more %s not shown: see %s.\n", count(n-shown), noun, fullReport)
}

// writeFooter writes the profile and how to reproduce the run locally.
func (d *doc) writeFooter(b *strings.Builder) {
	cmd := plain(d.o.Reproduce, 0)
	if cmd == "" {
		cmd = defaultCommand(d.r)
	}
	profile := string(d.r.Profile)
	if profile == "" {
		profile = "default"
	}
	fmt.Fprintf(b, "\n---\n\nProfile %s%s. Reproduce locally:\n\n", codeSpan(plain(profile, 40)), budgetNote(d.r))
	fence := strings.Repeat("`", max(3, longestRun(cmd, '`')+1))
	fmt.Fprintf(b, "%ssh\n%s\n%s\n", fence, cmd, fence)
}

// defaultCommand is the footer's command when Options.Reproduce is empty.
func defaultCommand(r *gate.Result) string {
	cmd := "agentgate gate"
	if r.Reliability != nil {
		cmd += " --traces TRACES"
	}
	if r.Coherence != nil {
		cmd += " --tasks TASKS"
	}
	if r.Agreement != nil {
		cmd += " --pairs PAIRS"
	}
	profile := string(r.Profile)
	if profile == "" {
		profile = "default"
	}
	cmd += " --profile " + plain(profile, 40)
	if r.TokenBudget != 0 {
		cmd += " --" + gate.TokenBudget + " " + strconv.FormatInt(r.TokenBudget, 10)
	}
	return cmd
}

// budgetNote names a token budget other than RS-1's beside the profile, so that a reader
// knows why the cost signal reads differently: "" at the default.
func budgetNote(r *gate.Result) string {
	if r.TokenBudget == 0 {
		return ""
	}
	return ", token budget " + strconv.FormatInt(r.TokenBudget, 10) + " a run (cost reads 1 above it)"
}

// codeSpan wraps one line of text in a code span that its own backticks cannot end.
func codeSpan(s string) string {
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// orDash returns s, or "—" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
