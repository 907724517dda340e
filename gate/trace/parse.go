package trace

import (
	"cmp"
	"unsafe"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// This file fills the decoding structs from a record in one pass, with no reflection:
// encoding/json spends most of its time growing slices through reflect and validates every
// value twice. The JSON itself is read with jsonscan's primitives (strings with their UTF-8
// check, numbers, literals, skipping a value), so it accepts exactly what jsonscan.Validate
// accepts (FuzzParser checks this). It only notes where it stopped: the decoder asks
// jsonscan.Validate for the first syntax error of the record, so that a syntax error anywhere
// wins over a type error found before it, and every message speaks jsonscan's vocabulary.

type parser struct {
	data  []byte
	i     int
	depth int // the arrays and objects open around p.i, counted into jsonscan's nesting limit
	s     *scratch

	failed bool
	typeAt int    // offset of a value of the wrong type, or -1 for a syntax error
	want   string // what was expected at typeAt
}

func (p *parser) peek() byte {
	p.i = jsonscan.SkipSpace(p.data, p.i)
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
	if jsonscan.SkipSpace(p.data, p.i) != len(p.data) {
		p.syntax()
	}
}

// skip checks and passes over one value, returning its text. Scalars, the most common values,
// go straight to their jsonscan primitive.
func (p *parser) skip() []byte {
	if p.failed {
		return nil
	}
	start := jsonscan.SkipSpace(p.data, p.i)
	var end int
	var err error
	k := jsonscan.KindInvalid
	if start < len(p.data) {
		k = jsonscan.KindOf(p.data[start])
	}
	switch k {
	case jsonscan.KindString:
		end, _, err = jsonscan.String(p.data, start)
	case jsonscan.KindNumber:
		end, _, err = jsonscan.Number(p.data, start)
	case jsonscan.KindTrue, jsonscan.KindFalse, jsonscan.KindNull:
		end, _, err = jsonscan.Literal(p.data, start)
	default: // an array or an object, or an error
		end, err = jsonscan.SkipIn(p.data, start, p.depth)
	}
	if err != nil {
		p.syntax()
		return nil
	}
	p.i = end
	return p.data[start:end:end]
}

// literal passes over true, false or null at p.i and returns its kind.
func (p *parser) literal() jsonscan.Kind {
	end, k, err := jsonscan.Literal(p.data, p.i)
	if err != nil {
		p.syntax()
		return jsonscan.KindInvalid
	}
	p.i = end
	return k
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
		p.depth++ // at most a few levels: the limit is left to skip (jsonscan.SkipIn)
		return true
	case c == 'n':
		p.literal()
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
	end, escaped, err := jsonscan.String(p.data, p.i)
	if err != nil {
		p.syntax()
		return nil
	}
	k := p.data[p.i+1 : end-1]
	if escaped {
		k = jsonscan.AppendUnescaped(nil, k, jsonscan.Replace)
	}
	if p.i, err = jsonscan.Colon(p.data, end); err != nil {
		p.syntax()
		return nil
	}
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
		p.literal()
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
	case 't', 'f', 'n':
		return p.literal() == jsonscan.KindTrue
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
	rare    []jsonRare // the messages' rare fields, pointed to by jsonMessage.rare
	calls   []jsonCall
	results []jsonResult
	ids     []rawRef
	blocks  []jsonBlock
	inner   []jsonBlock  // blocks inside tool_result blocks
	usage   [2]jsonUsage // the record's token_usage and usage

	// arena holds the text of the record's strings, so that a trace costs one allocation for
	// all of them rather than one each; a new arena is started for every record, and strings
	// point into it (see str), so nothing written to it is ever overwritten. A full arena is
	// not copied: a new one of piece bytes (or more) is started (see reserve).
	arena []byte
	piece int
}

// newArena starts the arena of a record of size bytes, reusing the last one's memory when
// reuse says its strings are dead. A record's text is its size at most (unescaping only
// shortens it), so a record up to 1 MB gets an arena of its size; a larger one, whose text is
// often half of it, gets pieces of a sixteenth, so that at most that much is allocated unused.
func (s *scratch) newArena(size int, reuse bool) {
	s.piece = size
	if size > 1<<20 {
		s.piece = max(size/16, 1<<20)
	}
	if reuse && cap(s.arena) >= s.piece {
		s.arena = s.arena[:0]
	} else {
		s.arena = make([]byte, 0, s.piece)
	}
}

// reserve makes room for n more bytes in the arena, starting a new one when it is full (the
// strings in the old one stay as they are).
func (s *scratch) reserve(n int) {
	if cap(s.arena)-len(s.arena) < n {
		s.arena = make([]byte, 0, max(n, s.piece))
	}
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
	if cap(s.rare) > keep {
		s.rare = nil
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

// drop lets go of all the parser's arrays, whose values point into the record, after a huge
// record (see input.HugeRecord), so that the record can be collected before its trace is
// evaluated.
func (s *scratch) drop() {
	*s = scratch{arena: s.arena, piece: s.piece}
}

// text returns a string of its own holding b, stored in the arena.
func (s *scratch) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	s.reserve(len(b))
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return unsafe.String(&s.arena[start], len(b))
}

// bytes returns a copy of b stored in the arena, with no room to append in place.
func (s *scratch) bytes(b []byte) []byte {
	s.reserve(len(b))
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return s.arena[start:len(s.arena):len(s.arena)]
}

// str decodes raw, a value the parser checked, when it is a JSON string, storing the text in
// the arena.
func (s *scratch) str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	s.reserve(len(raw) - 2)
	start := len(s.arena)
	s.arena = jsonscan.AppendUnescaped(s.arena, raw[1:len(raw)-1], jsonscan.Replace)
	if len(s.arena) == start {
		return "", true
	}
	return unsafe.String(&s.arena[start], len(s.arena)-start), true
}

// strBytes is str into bytes of their own (in the arena, with no room to append in place).
func (s *scratch) strBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	s.reserve(len(raw) - 2)
	start := len(s.arena)
	s.arena = jsonscan.AppendUnescaped(s.arena, raw[1:len(raw)-1], jsonscan.Replace)
	return s.arena[start:len(s.arena):len(s.arena)], true
}

// record parses a trace record into jr.
func (p *parser) record(jr *jsonRecord, s *scratch) {
	p.s = s
	s.calls, s.results, s.ids, s.blocks, s.inner = s.calls[:0], s.results[:0], s.ids[:0], s.blocks[:0], s.inner[:0]
	s.rare = s.rare[:0]
	if !p.open('{', "an object") {
		if !p.failed {
			p.end() // null: nothing may follow it either
		}
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
		case "suite":
			jr.Suite = p.skip()
		case "task":
			jr.TaskAlt = p.skip()
		case "metadata":
			p.metadata(jr)
		case "reward", "score", "success", "passed", "resolved":
			jr.Outcome[outcomeIndex(k)] = p.skip()
		case "reward_info":
			jr.HasRewardInfo, jr.RewardInfoReward = p.rewardInfo()
		case "instance_id":
			jr.InstanceID = p.skip()
		case "trajectory_format":
			jr.TrajectoryFormat = p.skip()
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

// metadata reads the trial index and the outcome members of a record's metadata object, if it
// has them; any other metadata value is skipped.
func (p *parser) metadata(jr *jsonRecord) {
	if p.peek() != '{' {
		p.skip()
		return
	}
	p.open('{', "an object")
	for n := 0; p.more('}', n); n++ {
		switch k := p.key(); string(k) {
		case "trial":
			jr.MetaTrial = p.skip()
		case "suite":
			jr.MetaSuite = p.skip()
		case "task_id":
			jr.MetaTaskID = p.skip()
		case "reward", "score", "success", "passed", "resolved":
			jr.MetaOutcome[outcomeIndex(k)] = p.skip()
		default:
			p.skip()
		}
	}
}

// outcomeIndex is the index of key k in OutcomeKeys.
func outcomeIndex(k []byte) int {
	for i, o := range OutcomeKeys {
		if o == string(k) {
			return i
		}
	}
	return 0
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
	if len(p.data)-p.i > countMessagesAbove {
		// a large record: count the messages first and make room for exactly that many, rather
		// than doubling, which left up to three times the list allocated (a message of
		// {"role":"user"} cost 28 times its 16 bytes)
		n := 0
		if _, err := jsonscan.EachElement(p.data, p.i, func(int, int) error { n++; return nil }); err == nil && cap(out)-len(out) < n {
			grown := make([]jsonMessage, len(out), len(out)+n)
			copy(grown, out)
			out = grown
		}
	}
	if !p.open('[', "an array") {
		return out, false
	}
	for n := 0; p.more(']', n); n++ {
		extend(&out, 0) // doubling: append's slower growth would leave ~4 times the list as garbage
		p.message(&out[len(out)-1])
	}
	return out, true
}

// countMessagesAbove is the size of the rest of a record past which the parser counts a
// message list's elements before reading them. The count is a second pass over the list, a
// fraction of the time its reading takes, spent only on records where the memory matters.
const countMessagesAbove = 1 << 20

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
			r := p.rare(m)
			r.ToolCallIDs, r.HasToolCallIDs = p.rawList()
		case "function_call":
			r := p.rare(m)
			r.FunctionCall = nil
			var f jsonFunction
			if p.function(&f) {
				r.FunctionCall = &f
			}
		case "usage":
			r := p.rare(m)
			r.Usage = p.usage(r.Usage)
		case "token_usage":
			r := p.rare(m)
			r.TokenUsage = p.usage(r.TokenUsage)
		case "action":
			p.rare(m).Action = p.skip()
		case "observation":
			p.rare(m).Observation = p.skip()
		case "thought":
			p.rare(m).Thought = p.skip()
		case "response":
			p.rare(m).Response = p.skip()
		case "message_type":
			p.rare(m).MessageType = p.skip()
		case "id":
			p.rare(m).ID = p.skip()
		case "error":
			p.rare(m).Error = p.skip()
		case "requestor":
			p.rare(m).ByUser = userRequested(p.skip())
		case "extra":
			r := p.rare(m)
			r.ExtraUsage, r.ExitStatus = p.extra(r.ExtraUsage)
		default:
			p.skip()
		}
	}
}

// rare returns m's rare fields for the parser to fill, taking them from the scratch's slab the
// first time.
func (p *parser) rare(m *jsonMessage) *jsonRare {
	if m.rare == nil {
		extend(&p.s.rare, len(p.s.rare))
		m.rare = &p.s.rare[len(p.s.rare)-1]
	}
	return m.rare
}

// rewardInfo reads tau2-bench's reward_info object: its reward, kept as text. A null
// reward_info is absent (ok false); any other value that is not an object is a type error.
func (p *parser) rewardInfo() (ok bool, reward rawRef) {
	if !p.open('{', "an object") {
		return false, nil
	}
	for n := 0; p.more('}', n); n++ {
		if string(p.key()) == "reward" {
			reward = p.skip()
		} else {
			p.skip()
		}
	}
	return true, reward
}

// extra reads what mini-swe-agent keeps in a message's extra: the token usage of the model's
// response (extra.response.usage, as litellm returned it) and, in an exit message, why the run
// ended (extra.exit_status); anything else is skipped.
func (p *parser) extra(prev *jsonUsage) (usage *jsonUsage, exitStatus rawRef) {
	if p.peek() != '{' {
		p.skip()
		return prev, nil
	}
	p.open('{', "an object")
	for n := 0; p.more('}', n); n++ {
		k := p.key()
		if string(k) == "exit_status" {
			exitStatus = p.skip()
			continue
		}
		if string(k) != "response" || p.peek() != '{' {
			p.skip()
			continue
		}
		p.open('{', "an object")
		for n := 0; p.more('}', n); n++ {
			if string(p.key()) == "usage" && p.peek() == '{' {
				prev = p.usage(prev)
			} else {
				p.skip()
			}
		}
	}
	return prev, exitStatus
}

// role reads a message's role without allocating for the usual ones.
func (p *parser) role() string {
	if p.peek() == '"' {
		if end, escaped, err := jsonscan.String(p.data, p.i); err == nil && !escaped {
			role := ""
			switch string(p.data[p.i+1 : end-1]) {
			case "user":
				role = "user"
			case "assistant":
				role = "assistant"
			case "tool":
				role = "tool"
			case "system":
				role = "system"
			}
			if role != "" {
				p.i = end
				return role
			}
		}
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
			case "name":
				c.Name = p.skip()
			case "requestor":
				c.ByUser = userRequested(p.skip())
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
		p.literal()
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

// stringValue decodes raw, a value the parser checked, when it is a JSON string.
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	return jsonscan.Unquote(raw, jsonscan.Replace), true
}

// validJSON reports whether b is one JSON value (in UTF-8), as jsonscan.Validate checks it.
func validJSON(b []byte) bool { return jsonscan.Validate(b) == nil }
