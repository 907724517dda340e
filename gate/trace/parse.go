package trace

import (
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

	// items counts the messages, calls, results, blocks and ids read, against maxItems
	items int

	failed bool
	typeAt int    // offset of a value of the wrong type, or -1 for a syntax error
	want   string // what was expected at typeAt
	// tooMany is set when the element at typeAt passed maxItems
	tooMany bool
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
	r := p.ref()
	if r.end == 0 {
		return nil
	}
	return p.data[r.off:r.end:r.end]
}

// ref is skip, returning where the value lies (the zero ref after an error).
func (p *parser) ref() ref {
	if p.failed {
		return ref{}
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
		return ref{}
	}
	p.i = end
	return ref{uint32(start), uint32(end)}
}

// strRef is ref for a member that must be a string or null (want describes it for a type
// error); null is absent.
func (p *parser) strRef(want string) ref {
	if p.failed {
		return ref{}
	}
	switch p.peek() {
	case '"':
		return p.ref()
	case 'n':
		p.literal()
	default:
		if !p.failed {
			at := p.i
			p.skip()
			p.wrongType(at, want)
		}
	}
	return ref{}
}

// item counts one more element read into the scratch's arrays, and stops the parse at the
// one that passes maxItems.
func (p *parser) item() bool { return p.count(1, jsonscan.SkipSpace(p.data, p.i)) }

// count counts n more items for the element at offset at.
func (p *parser) count(n, at int) bool {
	if p.items += n; p.items <= maxItems {
		return true
	}
	if !p.failed {
		p.failed, p.typeAt, p.tooMany = true, at, true
	}
	return false
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
// records reuses the same arrays. A message's calls, results, ids and blocks are spans of the
// shared arrays, whose elements hold no pointers (see ref).
type scratch struct {
	lists   [len(listKeys)][]jsonMessage
	rare    []jsonRare // the messages' rare fields, numbered by jsonMessage.rare
	calls   []jsonCall
	results []jsonResult
	ids     []ref
	blocks  []jsonBlock
	inner   []jsonBlock  // blocks inside tool_result blocks
	usages  []jsonUsage  // the messages' usage objects
	roles   []string     // the roles other than user, assistant, system and tool, in the arena
	usage   [2]jsonUsage // the record's token_usage and usage
	buf     []byte       // a string unescaped to be told apart (a role, a block's type)

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

// push adds a zero element to the end of *slab and returns its index. A full slab moves to
// an array twice as large (append's slower growth for large slices would leave more copies
// behind as garbage).
func push[T any](slab *[]T) int {
	s := *slab
	if len(s) == cap(s) {
		n := make([]T, len(s), max(2*cap(s), 16))
		copy(n, s)
		s = n
	}
	var zero T
	*slab = append(s, zero)
	return len(s)
}

// reset empties the arrays for the next record.
func (s *scratch) reset() {
	s.rare, s.calls, s.results, s.ids = s.rare[:0], s.calls[:0], s.results[:0], s.ids[:0]
	s.blocks, s.inner, s.usages, s.roles = s.blocks[:0], s.inner[:0], s.usages[:0], s.roles[:0]
}

// shrink lets go of the arrays a large record grew (over 4096 elements), so that they are
// neither held while its trace is evaluated nor kept for the records to come.
func (s *scratch) shrink() {
	s.lists = [len(listKeys)][]jsonMessage{letGo(s.lists[0]), letGo(s.lists[1]), letGo(s.lists[2]), letGo(s.lists[3]), letGo(s.lists[4])}
	s.rare, s.calls, s.results, s.ids = letGo(s.rare), letGo(s.calls), letGo(s.results), letGo(s.ids)
	s.blocks, s.inner, s.usages = letGo(s.blocks), letGo(s.inner), letGo(s.usages)
	clear(s.roles[:cap(s.roles)]) // strings into the arena
	s.roles = letGo(s.roles)
}

// letGo returns nil for an array of over 4096 elements, else the array.
func letGo[T any](a []T) []T {
	if cap(a) > 4096 {
		return nil
	}
	return a
}

// drop lets go of all the parser's arrays after a huge record (see input.HugeRecord), so that
// neither they nor the record are held while its trace is evaluated.
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
	s.reset()
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
		case "suite_name":
			jr.SuiteName = p.skip()
		case "pipeline_name":
			jr.Pipeline = p.skip()
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
		case "replay_config":
			jr.ReplayConfig = p.ref()
		case "ticks":
			jr.Ticks = p.ref()
		case "info":
			p.info(jr)
		case "error":
			jr.Error = p.ref()
		case "tools":
			jr.Tools = p.ref()
		case "messages", "trajectory", "traj", "history", "conversations":
			l := listIndex(string(k))
			jr.Lists[l], jr.Present[l] = p.messages(s.lists[l][:0])
			s.lists[l] = jr.Lists[l]
		case "token_usage":
			jr.TokenUsage = nil
			if p.usage(&s.usage[0]) {
				jr.TokenUsage = &s.usage[0]
			}
		case "usage":
			jr.Usage = nil
			if p.usage(&s.usage[1]) {
				jr.Usage = &s.usage[1]
			}
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

// info reads what a record's info object holds of a crash (tau-bench's error and traceback)
// and of the run's usage (SWE-agent's model_stats); any other info value is skipped.
func (p *parser) info(jr *jsonRecord) {
	if p.peek() != '{' {
		p.skip()
		return
	}
	p.open('{', "an object")
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "error":
			jr.InfoError = p.ref()
		case "traceback":
			jr.InfoTraceback = p.ref()
		case "config":
			jr.InfoConfig = p.ref()
		case "model_stats":
			if p.peek() != '{' {
				p.skip()
				continue
			}
			jr.HasModelStats = true
			p.open('{', "an object")
			for n := 0; p.more('}', n); n++ {
				switch string(p.key()) {
				case "tokens_sent":
					jr.TokensSent = p.ref()
				case "tokens_received":
					jr.TokensReceived = p.ref()
				default:
					p.skip()
				}
			}
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
		// a large record: count the messages first and make room for exactly that many (as
		// many as maxItems allows), rather than doubling, which left up to three times the
		// list allocated
		n := 0
		if _, err := jsonscan.EachElement(p.data, p.i, func(int, int) error { n++; return nil }); err == nil {
			n = min(n, max(maxItems-p.items, 0))
			if cap(out)-len(out) < n {
				grown := make([]jsonMessage, len(out), len(out)+n)
				copy(grown, out)
				out = grown
			}
		}
	}
	if !p.open('[', "an array") {
		return out, false
	}
	for n := 0; p.more(']', n); n++ {
		if !p.item() {
			break
		}
		k := push(&out)
		p.message(&out[k])
	}
	return out, true
}

// countMessagesAbove is the size of the rest of a record past which the parser counts a
// message list's elements before reading them. The count is a second pass over the list, a
// fraction of the time its reading takes, spent only on records where the memory matters.
const countMessagesAbove = 1 << 20

func (p *parser) message(m *jsonMessage) {
	at := jsonscan.SkipSpace(p.data, p.i)
	if !p.open('{', "an object") {
		return
	}
	defer func() {
		if m.rare != 0 {
			// it may become a call and a result besides (a SWE-agent step, a text action, a
			// tau2-bench tool message): two more items
			p.count(2, at)
		}
	}()
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "role":
			m.role = p.role()
		case "content":
			switch p.peek() {
			case '[':
				m.Content = ref{}
				m.blocks, m.hasBlocks = p.blocks(&p.s.blocks, false)
			case '"', 'n':
				m.Content, m.blocks, m.hasBlocks = p.ref(), elems{}, false
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
			m.ToolCallID = p.ref()
		case "tool_call_ids":
			ids, has := p.rawList()
			r := p.rare(m)
			r.ToolCallIDs, r.HasToolCallIDs = ids, has
		case "function_call":
			var f jsonFunction
			has := p.function(&f)
			r := p.rare(m)
			r.FunctionCall, r.HasFunctionCall = f, has
		case "usage":
			r := p.rare(m)
			r.Usage = p.messageUsage(r.Usage)
		case "token_usage":
			r := p.rare(m)
			r.TokenUsage = p.messageUsage(r.TokenUsage)
		case "action":
			p.rare(m).Action = p.ref()
		case "observation":
			p.rare(m).Observation = p.ref()
		case "thought":
			p.rare(m).Thought = p.ref()
		case "response":
			p.rare(m).Response = p.ref()
		case "message_type":
			p.rare(m).MessageType = p.ref()
		case "id":
			p.rare(m).ID = p.ref()
		case "error":
			p.rare(m).Error = p.ref()
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

// rare returns m's rare fields for the parser to fill, taking them from the scratch's array
// the first time. The pointer is good until the next message's rare fields are taken.
func (p *parser) rare(m *jsonMessage) *jsonRare {
	if m.rare == 0 {
		m.rare = uint32(push(&p.s.rare)) + 1
	}
	return &p.s.rare[m.rare-1]
}

// messageUsage reads a message's usage object into the scratch's usages (reusing number u,
// if the message had one), and returns its number, or 0 for null.
func (p *parser) messageUsage(u uint32) uint32 {
	if u == 0 {
		u = uint32(push(&p.s.usages)) + 1
	}
	if !p.usage(&p.s.usages[u-1]) {
		return 0
	}
	return u
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
// response (extra.response.usage, as litellm returned it; numbered as messageUsage does) and,
// in an exit message, why the run ended (extra.exit_status); anything else is skipped.
func (p *parser) extra(prev uint32) (usage uint32, exitStatus ref) {
	if p.peek() != '{' {
		p.skip()
		return prev, ref{}
	}
	p.open('{', "an object")
	for n := 0; p.more('}', n); n++ {
		k := p.key()
		if string(k) == "exit_status" {
			exitStatus = p.ref()
			continue
		}
		if string(k) != "response" || p.peek() != '{' {
			p.skip()
			continue
		}
		p.open('{', "an object")
		for n := 0; p.more('}', n); n++ {
			if string(p.key()) == "usage" && p.peek() == '{' {
				prev = p.messageUsage(prev)
			} else {
				p.skip()
			}
		}
	}
	return prev, exitStatus
}

// role reads a message's role: one of the usual four, told without keeping its text, else the
// text in the arena, numbered in the scratch's roles. null and "" are no role.
func (p *parser) role() uint32 {
	text, ok := p.optText()
	if !ok || len(text) == 0 {
		return noRole
	}
	for r, name := range roleNames {
		if name != "" && name == string(text) {
			return uint32(r)
		}
	}
	p.s.roles = append(p.s.roles, p.s.text(text))
	return roleOther + uint32(len(p.s.roles)-1)
}

// optText reads a string or null: the string's text (as text gives it), or false for null, for
// a value of another type (an error) and after an error.
func (p *parser) optText() ([]byte, bool) {
	if p.failed {
		return nil, false
	}
	switch p.peek() {
	case '"':
		return p.text()
	case 'n':
		p.literal()
	default:
		at := p.i
		p.skip()
		p.wrongType(at, "a string")
	}
	return nil, false
}

// text passes over the string at p.i and returns its text, unescaped into the scratch's
// buffer if it has escapes (good until the next call).
func (p *parser) text() ([]byte, bool) {
	end, escaped, err := jsonscan.String(p.data, p.i)
	if err != nil {
		p.syntax()
		return nil, false
	}
	text := p.data[p.i+1 : end-1]
	p.i = end
	if escaped {
		p.s.buf = jsonscan.AppendUnescaped(p.s.buf[:0], text, jsonscan.Replace)
		text = p.s.buf
	}
	return text, true
}

// blockType reads a content block's type (a string or null).
func (p *parser) blockType() blockType {
	text, ok := p.optText()
	switch {
	case !ok || len(text) == 0:
		return noType
	case blockTypes[string(text)] != noType:
		return blockTypes[string(text)]
	}
	return typeOther
}

func (p *parser) calls() elems {
	if !p.open('[', "an array") {
		return elems{}
	}
	lo := len(p.s.calls)
	for n := 0; p.more(']', n); n++ {
		if !p.item() {
			break
		}
		c := &p.s.calls[push(&p.s.calls)]
		if !p.open('{', "an object") {
			continue
		}
		for n := 0; p.more('}', n); n++ {
			switch string(p.key()) {
			case "tool_name":
				c.ToolName = p.ref()
			case "arguments":
				c.Arguments = p.ref()
			case "call_id":
				c.CallID = p.ref()
			case "id":
				c.ID = p.ref()
			case "name":
				c.Name = p.ref()
			case "requestor":
				c.ByUser = userRequested(p.skip())
			case "function":
				if p.peek() == '"' {
					// AgentDojo's FunctionCall: {"function": name, "args": {...}, "id"},
					// read as a flat call (agentdojo/functions_runtime.py)
					c.Name = p.ref()
				} else {
					c.HasFunction = p.function(&c.Function)
				}
			case "args":
				c.Arguments = p.ref()
			default:
				p.skip()
			}
		}
	}
	return elems{uint32(lo), uint32(len(p.s.calls))}
}

func (p *parser) function(f *jsonFunction) bool {
	*f = jsonFunction{}
	if !p.open('{', "an object") {
		return false
	}
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "name":
			f.Name = p.ref()
		case "arguments":
			f.Arguments = p.ref()
		default:
			p.skip()
		}
	}
	return true
}

func (p *parser) results() (elems, bool) {
	if !p.open('[', "an array") {
		return elems{}, false
	}
	lo := len(p.s.results)
	for n := 0; p.more(']', n); n++ {
		if !p.item() {
			break
		}
		r := &p.s.results[push(&p.s.results)]
		if !p.open('{', "an object") {
			continue
		}
		for n := 0; p.more('}', n); n++ {
			switch string(p.key()) {
			case "call_id":
				r.CallID = p.ref()
			case "success":
				r.Success = p.boolean()
			case "result":
				r.Result = p.ref()
			case "error":
				r.Error = p.ref()
			default:
				p.skip()
			}
		}
	}
	return elems{uint32(lo), uint32(len(p.s.results))}, true
}

// rawList reads an array of values kept as refs, into the scratch's ids.
func (p *parser) rawList() (elems, bool) {
	if !p.open('[', "an array") {
		return elems{}, false
	}
	lo := len(p.s.ids)
	for n := 0; p.more(']', n); n++ {
		if !p.item() {
			break
		}
		p.s.ids[push(&p.s.ids)] = p.ref()
	}
	return elems{uint32(lo), uint32(len(p.s.ids))}, true
}

// blocks reads a list of content blocks into *slab. Inside a tool_result (nested) a block's
// own "content" is kept as text, not parsed.
func (p *parser) blocks(slab *[]jsonBlock, nested bool) (elems, bool) {
	if !p.open('[', "an array") {
		return elems{}, false
	}
	lo := len(*slab)
	for n := 0; p.more(']', n); n++ {
		if !p.item() {
			break
		}
		b := &(*slab)[push(slab)]
		if !p.open('{', "an object") {
			continue
		}
		for n := 0; p.more('}', n); n++ {
			switch string(p.key()) {
			case "type":
				b.Type = p.blockType()
			case "text":
				b.Text = p.strRef("a string")
			case "id":
				b.ID = p.ref()
			case "name":
				b.Name = p.ref()
			case "input":
				b.Input = p.ref()
			case "tool_use_id":
				b.ToolUseID = p.ref()
			case "content":
				b.Content, b.inner, b.hasInner = ref{}, elems{}, false
				if !nested && p.peek() == '[' {
					b.inner, b.hasInner = p.blocks(&p.s.inner, true)
				} else {
					b.Content = p.ref()
				}
			case "is_error":
				b.IsError = p.boolean()
			default:
				p.skip()
			}
		}
	}
	return elems{uint32(lo), uint32(len(*slab))}, true
}

// usage reads a usage object into u; null, or a value that is not an object (a type error),
// leaves it absent (false).
func (p *parser) usage(u *jsonUsage) bool {
	*u = jsonUsage{}
	if p.peek() == 'n' {
		p.literal()
		return false
	}
	if !p.open('{', "an object") {
		return false
	}
	for n := 0; p.more('}', n); n++ {
		switch string(p.key()) {
		case "prompt_tokens":
			u.PromptTokens = p.ref()
		case "completion_tokens":
			u.CompletionTokens = p.ref()
		case "total_tokens":
			u.TotalTokens = p.ref()
		case "input_tokens":
			u.InputTokens = p.ref()
		case "output_tokens":
			u.OutputTokens = p.ref()
		default:
			p.skip()
		}
	}
	return true
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
