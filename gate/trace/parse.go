package trace

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file is a small JSON parser that validates a record and fills the decoding structs
// in one pass, with no reflection: encoding/json spends most of its time growing slices
// through reflect and validates every value twice. It accepts exactly what json.Valid
// accepts (FuzzParser checks this); when it finds a problem it only notes where, and the
// decoder asks encoding/json for the wording of syntax errors, so messages stay the same as
// elsewhere in the project.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

type parser struct {
	data  []byte
	i     int
	depth int
	s     *scratch

	failed bool
	typeAt int    // offset of a value of the wrong type, or -1 for a syntax error
	want   string // what was expected at typeAt
}

func (p *parser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	p.ws()
	if p.i < len(p.data) {
		return p.data[p.i]
	}
	return 0
}

func (p *parser) syntax() {
	if !p.failed {
		p.failed, p.typeAt = true, -1
	}
}

// wrongType notes that the value at offset at is not what was wanted, and stops the parse.
func (p *parser) wrongType(at int, want string) {
	if !p.failed {
		p.failed, p.typeAt, p.want = true, at, want
	}
}

// end checks that nothing but white space follows the top-level value.
func (p *parser) end() {
	if p.peek() != 0 || p.i != len(p.data) {
		p.syntax()
	}
}

// skip validates and passes over one value, returning its text.
func (p *parser) skip() []byte {
	if p.failed {
		return nil
	}
	c := p.peek()
	start := p.i
	switch {
	case c == '"':
		p.scanString()
	case c == '{' || c == '[':
		p.skipContainer()
	case c == 't':
		p.literal("true")
	case c == 'f':
		p.literal("false")
	case c == 'n':
		p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		p.number()
	default:
		p.syntax()
	}
	if p.failed {
		return nil
	}
	return p.data[start:p.i:p.i]
}

func (p *parser) literal(lit string) {
	if !bytes.HasPrefix(p.data[p.i:], []byte(lit)) {
		p.syntax()
		return
	}
	p.i += len(lit)
}

func (p *parser) number() {
	d, i := p.data, p.i
	digits := func() bool {
		s := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		p.syntax()
		return
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			p.syntax()
			return
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			p.syntax()
			return
		}
	}
	p.i = i
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// plain marks the bytes a string may hold as they are: not '"', '\\' or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString passes over the string at p.i and reports whether it holds escapes. It reads
// eight bytes at a time while none of them needs a look (a quote, a backslash or a control
// character).
func (p *parser) scanString() (escaped bool) {
	d := p.data
	for i := p.i + 1; ; {
		for i+8 <= len(d) {
			if m := specials(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(d) {
			break
		}
		if plain[d[i]] {
			i++
			continue
		}
		switch d[i] {
		case '"':
			p.i = i + 1
			return escaped
		case '\\':
			escaped = true
			if i+1 >= len(d) {
				p.syntax()
				return
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					p.syntax()
					return
				}
				i += 6
			default:
				p.syntax()
				return
			}
		default: // a control character
			p.syntax()
			return
		}
	}
	p.syntax()
	return
}

// specials marks (with the high bit of the byte) the bytes of the eight in x, read little
// endian, that are a quote, a backslash or a control character. Bytes after the first marked
// one may be marked wrongly (a borrow runs on), but the first mark is always right, which is
// all scanString uses.
func specials(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & highs
}

// skipContainer passes over an object or array without recursion.
func (p *parser) skipContainer() {
	var small [32]byte
	stack := small[:0]
	for {
		// a value is expected
		switch c := p.peek(); c {
		case '{', '[':
			p.i++
			if p.depth++; p.depth > maxDepth {
				p.syntax()
				return
			}
			stack = append(stack, c)
			close := byte(']')
			if c == '{' {
				close = '}'
			}
			if p.peek() == close {
				p.i++
				p.depth--
				stack = stack[:len(stack)-1]
				break
			}
			if c == '{' && !p.colonKey() {
				return
			}
			continue
		default:
			if p.skip(); p.failed {
				return
			}
		}
		// after a value: a comma, or the end of the innermost container
		for {
			if len(stack) == 0 {
				return
			}
			top := stack[len(stack)-1]
			c := p.peek()
			if c == ',' {
				p.i++
				if top == '{' && !p.colonKey() {
					return
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				p.i++
				p.depth--
				stack = stack[:len(stack)-1]
				continue
			}
			p.syntax()
			return
		}
	}
}

// colonKey passes over an object key and its colon.
func (p *parser) colonKey() bool {
	if p.peek() != '"' {
		p.syntax()
		return false
	}
	p.scanString()
	if p.failed || p.peek() != ':' {
		p.syntax()
		return false
	}
	p.i++
	return true
}

// open enters the object or array (per open) at p.i. Null is read as absent (false, no
// error); any other value is a type error described by want.
func (p *parser) open(open byte, want string) bool {
	if p.failed {
		return false
	}
	switch c := p.peek(); {
	case c == open:
		p.i++
		if p.depth++; p.depth > maxDepth {
			p.syntax()
			return false
		}
		return true
	case c == 'n':
		p.literal("null")
	default:
		at := p.i
		p.skip()
		p.wrongType(at, want)
	}
	return false
}

// more is called before member n of an open object or array (closed by close); it passes
// over the separating comma, or over the closing bracket and returns false.
func (p *parser) more(close byte, n int) bool {
	if p.failed {
		return false
	}
	c := p.peek()
	if c == close {
		p.i++
		p.depth--
		return false
	}
	if n > 0 {
		if c != ',' {
			p.syntax()
			return false
		}
		p.i++
	}
	return true
}

// key reads a member's key and its colon. The key's bytes point into the data unless it
// holds escapes.
func (p *parser) key() []byte {
	if p.peek() != '"' {
		p.syntax()
		return nil
	}
	start := p.i
	escaped := p.scanString()
	if p.failed {
		return nil
	}
	k := p.data[start+1 : p.i-1]
	if escaped {
		k = appendUnescaped(nil, k)
	}
	if p.peek() != ':' {
		p.syntax()
		return nil
	}
	p.i++
	return k
}

// str reads a string (null is ""); want describes the field for a type error.
func (p *parser) str(want string) string {
	if p.failed {
		return ""
	}
	switch p.peek() {
	case '"':
		if p.s == nil {
			s, _ := stringValue(p.skip())
			return s
		}
		s, _ := p.s.str(p.skip())
		return s
	case 'n':
		p.literal("null")
	default:
		at := p.i
		p.skip()
		p.wrongType(at, want)
	}
	return ""
}

// boolean reads true or false (null is false).
func (p *parser) boolean() bool {
	if p.failed {
		return false
	}
	switch p.peek() {
	case 't':
		p.literal("true")
		return true
	case 'f':
		p.literal("false")
	case 'n':
		p.literal("null")
	default:
		at := p.i
		p.skip()
		p.wrongType(at, "true or false")
	}
	return false
}

// scratch is the parser's working memory, kept from record to record so that a stream of
// records reuses the same arrays. A message's calls, results, ids and blocks are subslices of
// the shared arrays: each is taken once its elements are written, so it stays valid when the
// array grows afterwards.
type scratch struct {
	lists   [len(listKeys)][]jsonMessage
	calls   []jsonCall
	results []jsonResult
	ids     []rawRef
	blocks  []jsonBlock
	inner   []jsonBlock  // blocks inside tool_result blocks
	usage   [2]jsonUsage // the record's token_usage and usage

	// arena holds the text of the record's strings, so that a trace costs one allocation for
	// all of them rather than one each; a new arena is started for every record, and strings
	// point into it (see str), so nothing written to it is ever overwritten.
	arena []byte
	// valid is true when the record is known to be UTF-8: strings need no check of their own.
	valid bool
}

// extend adds a zero element to the end of *slab, the last element of the run that starts at
// lo, and returns where that run starts now. A full slab moves to a new array, twice as large,
// taking only the open run along: the runs taken before keep the old array alive, so copying
// them too (as append does) would hold every element several times over (a 123 MB trace kept
// 250 MB of parser arrays for 70 MB of elements).
func extend[T any](slab *[]T, lo int) int {
	s := *slab
	if len(s) == cap(s) {
		n := make([]T, len(s)-lo, max(2*cap(s), 16))
		copy(n, s[lo:])
		s, lo = n, 0
	}
	var zero T
	*slab = append(s, zero)
	return lo
}

// shrink lets go of the arrays a large record grew (over 4096 elements), so that they are
// neither held while its trace is evaluated nor kept for the records to come.
func (s *scratch) shrink() {
	const keep = 4096
	for l := range s.lists {
		if cap(s.lists[l]) > keep {
			s.lists[l] = nil
		}
	}
	if cap(s.calls) > keep {
		s.calls = nil
	}
	if cap(s.results) > keep {
		s.results = nil
	}
	if cap(s.ids) > keep {
		s.ids = nil
	}
	if cap(s.blocks) > keep {
		s.blocks = nil
	}
	if cap(s.inner) > keep {
		s.inner = nil
	}
}

// text returns a string of its own holding b, stored in the arena.
func (s *scratch) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	start := len(s.arena)
	s.arena = append(s.arena, b...) // a new backing array when full: the old one stays as it is
	return unsafe.String(&s.arena[start], len(b))
}

// bytes returns a copy of b stored in the arena, with no room to append in place.
func (s *scratch) bytes(b []byte) []byte {
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return s.arena[start:len(s.arena):len(s.arena)]
}

// str decodes raw when it is a JSON string, storing the text in the arena.
func (s *scratch) str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !s.valid {
		return stringValue(raw)
	}
	if bytes.IndexByte(body, '\\') < 0 {
		return s.text(body), true
	}
	start := len(s.arena)
	s.arena = appendUnescaped(s.arena, body)
	if len(s.arena) == start {
		return "", true
	}
	return unsafe.String(&s.arena[start], len(s.arena)-start), true
}

// strBytes is str into bytes of their own (in the arena, with no room to append in place).
func (s *scratch) strBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	if !s.valid {
		return bytesValue(raw)
	}
	start := len(s.arena)
	s.arena = appendUnescaped(s.arena, raw[1:len(raw)-1])
	return s.arena[start:len(s.arena):len(s.arena)], true
}

// record parses a trace record into jr.
func (p *parser) record(jr *jsonRecord, s *scratch) {
	p.s = s
	s.calls, s.results, s.ids, s.blocks, s.inner = s.calls[:0], s.results[:0], s.ids[:0], s.blocks[:0], s.inner[:0]
	if !p.open('{', "an object") {
		return
	}
	for n := 0; p.more('}', n); n++ {
		k := p.key()
		switch string(k) {
		case "trace_id":
			jr.TraceID = p.skip()
		case "id":
			jr.ID = p.skip()
		case "task_id":
			jr.TaskID = p.skip()
		case "trial":
			jr.Trial = p.skip()
		case "metadata":
			jr.MetaTrial = p.metaTrial()
		case "messages", "trajectory", "traj", "history":
			l := listIndex(string(k))
			jr.Lists[l], jr.Present[l] = p.messages(s.lists[l][:0])
			s.lists[l] = jr.Lists[l]
		case "token_usage":
			jr.TokenUsage = p.usage(cmp.Or(jr.TokenUsage, &s.usage[0]))
		case "usage":
			jr.Usage = p.usage(cmp.Or(jr.Usage, &s.usage[1]))
		default:
			p.skip()
		}
	}
	p.end()
}

// metaTrial reads the trial index of a record's metadata object, if it has one; any other
// metadata value is skipped.
func (p *parser) metaTrial() rawRef {
	if p.peek() != '{' {
		p.skip()
		return nil
	}
	var trial rawRef
	p.open('{', "an object")
	for n := 0; p.more('}', n); n++ {
		if string(p.key()) == "trial" {
			trial = p.skip()
		} else {
			p.skip()
		}
	}
	return trial
}

func listIndex(k string) int {
	for i, l := range listKeys {
		if l == k {
			return i
		}
	}
	return 0
}

func (p *parser) messages(out []jsonMessage) ([]jsonMessage, bool) {
	if !p.open('[', "an array") {
		return out, false
	}
	for n := 0; p.more(']', n); n++ {
		out = append(out, jsonMessage{})
		p.message(&out[len(out)-1])
	}
	return out, true
}

func (p *parser) message(m *jsonMessage) {
	if !p.open('{', "an object") {
		return
	}
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "role":
			m.Role = p.role()
		case "content":
			switch p.peek() {
			case '[':
				m.Content = nil
				m.blocks, m.hasBlocks = p.blocks(&p.s.blocks, false)
			case '"', 'n':
				m.Content, m.blocks, m.hasBlocks = p.skip(), nil, false
			default:
				at := p.i
				p.skip()
				p.wrongType(at, "a string, an array of content blocks or null")
			}
		case "tool_calls":
			m.ToolCalls = p.calls()
		case "tool_results":
			m.ToolResults, m.HasToolResults = p.results()
		case "tool_call_id":
			m.ToolCallID = p.skip()
		case "tool_call_ids":
			m.ToolCallIDs, m.HasToolCallIDs = p.rawList()
		case "function_call":
			m.FunctionCall = nil
			var f jsonFunction
			if p.function(&f) {
				m.FunctionCall = &f
			}
		case "usage":
			m.Usage = p.usage(m.Usage)
		case "token_usage":
			m.TokenUsage = p.usage(m.TokenUsage)
		case "action":
			m.Action = p.skip()
		case "observation":
			m.Observation = p.skip()
		case "thought":
			m.Thought = p.skip()
		case "response":
			m.Response = p.skip()
		case "message_type":
			m.MessageType = p.skip()
		default:
			p.skip()
		}
	}
}

// role reads a message's role without allocating for the usual ones.
func (p *parser) role() string {
	if p.peek() == '"' {
		start := p.i
		if !p.scanString() && !p.failed {
			switch string(p.data[start+1 : p.i-1]) {
			case "user":
				return "user"
			case "assistant":
				return "assistant"
			case "tool":
				return "tool"
			case "system":
				return "system"
			}
		}
		p.i = start
	}
	return p.str("a string")
}

func (p *parser) calls() []jsonCall {
	if !p.open('[', "an array") {
		return nil
	}
	lo := len(p.s.calls)
	for n := 0; p.more(']', n); n++ {
		lo = extend(&p.s.calls, lo)
		c := &p.s.calls[len(p.s.calls)-1]
		if !p.open('{', "an object") {
			continue
		}
		for n := 0; p.more('}', n); n++ {
			switch string(p.key()) {
			case "tool_name":
				c.ToolName = p.skip()
			case "arguments":
				c.Arguments = p.skip()
			case "call_id":
				c.CallID = p.skip()
			case "id":
				c.ID = p.skip()
			case "function":
				c.HasFunction = p.function(&c.Function)
			default:
				p.skip()
			}
		}
	}
	return p.s.calls[lo:len(p.s.calls):len(p.s.calls)]
}

func (p *parser) function(f *jsonFunction) bool {
	*f = jsonFunction{}
	if !p.open('{', "an object") {
		return false
	}
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "name":
			f.Name = p.skip()
		case "arguments":
			f.Arguments = p.skip()
		default:
			p.skip()
		}
	}
	return true
}

func (p *parser) results() ([]jsonResult, bool) {
	if !p.open('[', "an array") {
		return nil, false
	}
	lo := len(p.s.results)
	for n := 0; p.more(']', n); n++ {
		lo = extend(&p.s.results, lo)
		r := &p.s.results[len(p.s.results)-1]
		if !p.open('{', "an object") {
			continue
		}
		for n := 0; p.more('}', n); n++ {
			switch string(p.key()) {
			case "call_id":
				r.CallID = p.skip()
			case "success":
				r.Success = p.boolean()
			case "result":
				r.Result = p.skip()
			case "error":
				r.Error = p.skip()
			default:
				p.skip()
			}
		}
	}
	return p.s.results[lo:len(p.s.results):len(p.s.results)], true
}

// rawList reads an array of values kept as text.
func (p *parser) rawList() ([]rawRef, bool) {
	if !p.open('[', "an array") {
		return nil, false
	}
	lo := len(p.s.ids)
	for n := 0; p.more(']', n); n++ {
		lo = extend(&p.s.ids, lo)
		p.s.ids[len(p.s.ids)-1] = p.skip()
	}
	return p.s.ids[lo:len(p.s.ids):len(p.s.ids)], true
}

// blocks reads a list of content blocks into *slab. Inside a tool_result (nested) a block's
// own "content" is kept as text, not parsed.
func (p *parser) blocks(slab *[]jsonBlock, nested bool) ([]jsonBlock, bool) {
	if !p.open('[', "an array") {
		return nil, false
	}
	lo := len(*slab)
	for n := 0; p.more(']', n); n++ {
		lo = extend(slab, lo)
		b := &(*slab)[len(*slab)-1]
		if !p.open('{', "an object") {
			continue
		}
		for n := 0; p.more('}', n); n++ {
			switch string(p.key()) {
			case "type":
				b.Type = p.str("a string")
			case "text":
				b.Text = p.str("a string")
			case "id":
				b.ID = p.skip()
			case "name":
				b.Name = p.skip()
			case "input":
				b.Input = p.skip()
			case "tool_use_id":
				b.ToolUseID = p.skip()
			case "content":
				b.Content, b.inner, b.hasInner = nil, nil, false
				if !nested && p.peek() == '[' {
					b.inner, b.hasInner = p.blocks(&p.s.inner, true)
				} else {
					b.Content = p.skip()
				}
			case "is_error":
				b.IsError = p.boolean()
			default:
				p.skip()
			}
		}
	}
	return (*slab)[lo:len(*slab):len(*slab)], true
}

func (p *parser) usage(prev *jsonUsage) *jsonUsage {
	if p.peek() == 'n' {
		p.literal("null")
		return nil
	}
	u := prev
	if u == nil {
		u = new(jsonUsage)
	}
	*u = jsonUsage{}
	if !p.open('{', "an object") {
		return nil
	}
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "prompt_tokens":
			u.PromptTokens = p.skip()
		case "completion_tokens":
			u.CompletionTokens = p.skip()
		case "total_tokens":
			u.TotalTokens = p.skip()
		case "input_tokens":
			u.InputTokens = p.skip()
		case "output_tokens":
			u.OutputTokens = p.skip()
		default:
			p.skip()
		}
	}
	return u
}

// topLevelError returns the text of the top-level "error" member when s is exactly one JSON
// object holding one (the last, if repeated).
func topLevelError(s []byte) (rawRef, bool) {
	p := parser{data: s}
	if !p.open('{', "") {
		return nil, false
	}
	var e rawRef
	for n := 0; p.more('}', n); n++ {
		if string(p.key()) == "error" {
			e = p.skip()
		} else {
			p.skip()
		}
	}
	p.end()
	return e, !p.failed && e != nil
}

// stringValue decodes raw when it is a JSON string.
func stringValue(raw []byte) (string, bool) {
	var buf []byte
	return stringValueBuf(raw, &buf)
}

// stringValueBuf is stringValue with a scratch buffer for resolving escapes, so that the
// string is the only allocation.
func stringValueBuf(raw []byte, buf *[]byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !utf8.Valid(body) {
		// Only reachable through Decode (the input reader rejects invalid UTF-8): let
		// encoding/json replace the bad bytes as everywhere else.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	*buf = appendUnescaped((*buf)[:0], body)
	return string(*buf), true
}

// bytesValue decodes raw when it is a JSON string, into bytes of its own.
func bytesValue(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	if !utf8.Valid(body) {
		s, ok := stringValue(raw)
		return []byte(s), ok
	}
	return appendUnescaped(make([]byte, 0, len(body)), body), true
}

// validJSON reports whether b is one JSON value, as json.Valid does.
func validJSON(b []byte) bool {
	p := parser{data: b}
	p.skip()
	p.end()
	return !p.failed
}

// appendUnescaped appends the string body s (valid JSON string text without its quotes) to
// b with its escapes resolved, as encoding/json does: a lone surrogate becomes U+FFFD.
func appendUnescaped(b, s []byte) []byte {
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				return append(b, s[i:]...)
			}
			b = append(b, s[i:i+j]...)
			i += j
			continue
		}
		if i+1 >= len(s) {
			return append(b, s[i:]...)
		}
		switch s[i+1] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return append(b, s[i:]...)
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := hex4(s[i+2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, s[i+1])
		}
		i += 2
	}
	return b
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
