package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"strings"
)

// Conversations assembles the messages of a run recorded as separate model calls and tool
// calls (OTLP spans, run trees, observations) into the run's Messages, as
// docs/trace-formats.md ("How model calls become one run") describes:
//
//   - A run of several model calls is one or more conversations. A call continues the
//     conversation whose messages so far (the last call's input and output) are a prefix of
//     its input, compared message by message by role and the ids of their tool calls and
//     results, else their text; the longest such prefix wins. A call no conversation is a
//     prefix of starts a new one: two agents that start with the same system prompt are two
//     conversations, not one whose messages are lined up by position.
//   - A call on a conversation its server keeps (ModelAfter) is sent only what is new: it
//     continues the conversation the reader names (the one its previous response went to).
//   - A call adds the input messages its conversation has not seen yet, then its output.
//   - A tool call recorded on its own (a tool span, an observation) adds its result to the
//     call the model made (by call id, else the open call of that tool with the same
//     arguments, else the first unanswered call of that tool in the newest batch holding
//     one, as openCallOf says, so that parallel calls are answered in their order), or adds
//     a call and its result of its own when no model message holds the call. What a tool
//     event carried is added once: a later call of the same conversation that re-sends that
//     call or result in its input does not add it again, whichever came first; a result
//     without an id re-sent right after its call is the one the event gave (resent).
//   - A call or result with an id is one call or result of the run: an input that re-sends
//     one the run already holds (a handoff hands the conversation so far to an agent with
//     another system prompt, which is a conversation of its own) does not add it again, and
//     a result first seen in such an input goes to the conversation that holds its call.
//   - Messages are the conversations' messages one after another, in the order the
//     conversations started.
//
// Feed it model calls and tool events in the order they happened (start time, ties in file
// order). Each call costs time linear in the size of its input, however many conversations
// the run holds.
type Conversations struct {
	convs []*conversation
	last  int // the conversation continued last, -1 before any
	seed  maphash.Seed
	// byView finds conversations by the hash of their view.
	byView map[uint64][]int
	// calls and results hold, by call id, where the first call and the first result of that
	// id are.
	calls, results map[string]loc
	// open holds, by tool, its calls message by message, in order, and byArgs the same by
	// tool and arguments (argsKey): openCall looks there first. unkeyed are the calls not yet
	// in byArgs, which only a tool event without a call id needs (keyCalls).
	open, byArgs map[string][]openCalls
	unkeyed      []batched
	answered     map[loc]bool
	// scanned counts the calls openCall has looked at, for the test of its cost.
	scanned int
	// claimed marks the calls and results without an id that a tool event carried and an
	// input has met; made marks the messages a tool event made holding a call.
	claimed, made map[loc]bool
}

// conversation is one line of model calls.
type conversation struct {
	// view is the last call's input and output: the messages a call that continues the
	// conversation starts its input with. hash is theirs (Conversations.prefixHashes). The
	// conversation owns it: a call that continues it without re-sending it appends to it.
	view []Message
	hash uint64
	msgs []Message
	// idlessCalls are the calls without an id a tool event made on its own, by tool, and
	// idlessResults the results without a call id it carried, by text: those not yet met
	// in a call's input (Conversations.claimed) can stand for a call or result of one.
	idlessCalls, idlessResults map[string][]loc
	// batch is where the run of messages with calls the last message belongs to starts
	// (openCall)
	batch int
	// answers are the results without an id tool events gave the model's calls, in order,
	// those before nextAnswer met (resent).
	answers    []eventAnswer
	nextAnswer int
}

// batched is a call not yet in byArgs and the batch it belongs to (keyCalls).
type batched struct {
	l     loc
	batch int
}

// eventAnswer is where a tool event's result without an id is, and the call it answers.
type eventAnswer struct{ res, call loc }

func newConversation() *conversation {
	return &conversation{idlessCalls: map[string][]loc{}, idlessResults: map[string][]loc{}}
}

// loc is where a call or result is: conversation, message, index in the message.
type loc struct{ conv, msg, idx int }

// openCalls are the calls of one tool in one batch (openCall), in order; those before next
// are answered.
type openCalls struct {
	conv, batch int
	calls       []loc
	next        int
}

// ToolEvent is one tool call as a tool span or observation records it: the call (id where
// recorded, tool, arguments), its result and whether it failed.
type ToolEvent struct {
	Call   Call
	Result string
	Failed bool
	Error  string // why it failed, where recorded
}

// NewConversations returns an empty assembly.
func NewConversations() *Conversations {
	return &Conversations{last: -1, seed: maphash.MakeSeed(), byView: map[uint64][]int{},
		calls: map[string]loc{}, results: map[string]loc{}, open: map[string][]openCalls{},
		byArgs: map[string][]openCalls{}, answered: map[loc]bool{}, claimed: map[loc]bool{}, made: map[loc]bool{}}
}

// Model adds a model call: its input and output messages. A call with neither is nothing.
// It returns the conversation the call continued or started, -1 for nothing.
func (c *Conversations) Model(in, out []Message) int {
	if len(in) == 0 && len(out) == 0 {
		return -1
	}
	if len(in) == 0 { // the call's output follows the conversation's messages so far
		if c.last >= 0 {
			return c.ModelAfter(c.last, nil, out)
		}
	}
	hashes := c.prefixHashes(in)
	ci, seen := c.find(in, hashes)
	if ci < 0 {
		ci = c.start()
	}
	return c.grow(ci, append(c.convs[ci].view[:0], in...), seen, hashes[len(hashes)-1], out)
}

// ModelAfter adds a model call that continues conversation ci and was sent only the input
// messages that conversation has not seen: a conversation the model's server keeps (the
// Responses API's previous_response_id or conversation), whose calls send only what is new.
// The call's input and output are added as Model adds them; the conversation's messages so
// far, followed by them, are what a later call that sends the whole conversation starts
// with. A ci that is no conversation's makes it Model's call. It returns ci.
func (c *Conversations) ModelAfter(ci int, in, out []Message) int {
	if ci < 0 || ci >= len(c.convs) {
		return c.Model(in, out)
	}
	if len(in) == 0 && len(out) == 0 {
		return ci
	}
	conv := c.convs[ci]
	return c.grow(ci, append(conv.view, in...), len(conv.view), c.extend(conv.hash, in), out)
}

// grow adds a call to conversation ci: the messages of its input from index from on (those
// the conversation has not seen), then its output; input then out become the conversation's
// view. input is the call's whole input in the view's own memory (Model copies the caller's
// there, ModelAfter appends what is new to the view), and inputHash its hash.
func (c *Conversations) grow(ci int, input []Message, from int, inputHash uint64, out []Message) int {
	for i := from; i < len(input); i++ {
		var prev *Message // the message before, nil for the first
		if i > 0 {
			prev = &input[i-1]
		}
		c.addInput(ci, input[i], prev)
	}
	for i := range out {
		c.add(ci, out[i])
	}
	conv := c.convs[ci]
	c.unindex(ci)
	conv.view = append(input, out...)
	conv.hash = c.extend(inputHash, out)
	c.byView[conv.hash] = append(c.byView[conv.hash], ci)
	c.last = ci
	return ci
}

// start starts a conversation, with no view yet, and returns it.
func (c *Conversations) start() int {
	ci := len(c.convs)
	c.convs = append(c.convs, newConversation())
	c.byView[0] = append(c.byView[0], ci)
	return ci
}

// find returns the conversation whose view is the longest prefix of in, and that prefix's
// length; -1 when none is (a conversation with no view yet, made by tool events alone, is a
// prefix of any input). Among conversations with the same view the one continued last wins.
// With no input, the call continues the conversation continued last.
func (c *Conversations) find(in []Message, hashes []uint64) (int, int) {
	if len(in) == 0 {
		return c.last, 0
	}
	for k := len(in); k >= 0; k-- {
		best := -1
		for _, ci := range c.byView[hashes[k]] {
			if c.convs[ci].is(in[:k]) && (best < 0 || c.lastUse(ci) > c.lastUse(best)) {
				best = ci
			}
		}
		if best >= 0 {
			return best, k
		}
	}
	return -1, 0
}

// lastUse orders conversations by how recently a call continued them: the one continued
// last first, then by creation.
func (c *Conversations) lastUse(ci int) int {
	if ci == c.last {
		return len(c.convs)
	}
	return ci
}

// is reports whether the conversation's view is exactly ms.
func (v *conversation) is(ms []Message) bool {
	if len(v.view) != len(ms) {
		return false
	}
	for i := range ms {
		if !sameMessage(&ms[i], &v.view[i]) {
			return false
		}
	}
	return true
}

// unindex removes conversation ci from byView under its current hash.
func (c *Conversations) unindex(ci int) {
	h := c.convs[ci].hash
	list := c.byView[h]
	for i, x := range list {
		if x == ci {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(c.byView, h)
	} else {
		c.byView[h] = list
	}
}

// prefixHashes returns the hash of in[:k] for every k from 0 to len(in): hashes of the
// same messages by sameMessage are equal, and that of no message is 0.
func (c *Conversations) prefixHashes(in []Message) []uint64 {
	out := make([]uint64, len(in)+1)
	for i := range in {
		out[i+1] = c.extend(out[i], in[i:i+1])
	}
	return out
}

// extend is the hash of the messages hashed as h followed by ms.
func (c *Conversations) extend(h uint64, ms []Message) uint64 {
	var hh maphash.Hash
	hh.SetSeed(c.seed)
	var b [8]byte
	for i := range ms {
		binary.LittleEndian.PutUint64(b[:], h)
		hh.Reset()
		_, _ = hh.Write(b[:])
		writeKey(&hh, &ms[i])
		h = hh.Sum64()
	}
	return h
}

// writeKey writes what sameMessage compares of m, each part with its length.
func writeKey(h *maphash.Hash, m *Message) {
	str := func(tag byte, s string) {
		var b [9]byte
		b[0] = tag
		binary.LittleEndian.PutUint64(b[1:], uint64(len(s)))
		_, _ = h.Write(b[:])
		_, _ = h.WriteString(s)
	}
	str('r', m.Role)
	for i := range m.Calls {
		if m.Calls[i].HasID {
			str('c', m.Calls[i].ID)
		} else {
			str('n', m.Calls[i].Tool)
		}
	}
	for i := range m.Results {
		str('R', m.Results[i].CallID)
	}
	if len(m.Calls) == 0 && len(m.Results) == 0 {
		str('t', m.Content)
	}
}

// add adds m to conversation ci.
func (c *Conversations) add(ci int, m Message) {
	conv := c.convs[ci]
	at := len(conv.msgs)
	if len(m.Calls) > 0 && (at == 0 || len(conv.msgs[at-1].Calls) == 0) {
		conv.batch = at
	}
	for j, call := range m.Calls {
		l := loc{ci, at, j}
		if call.HasID {
			if _, seen := c.calls[call.ID]; !seen {
				c.calls[call.ID] = l
			}
		}
		c.addOpen(c.open, call.Tool, l, conv.batch)
		c.unkeyed = append(c.unkeyed, batched{l, conv.batch})
	}
	for j, r := range m.Results {
		if r.HasID {
			if _, seen := c.results[r.CallID]; !seen {
				c.results[r.CallID] = loc{ci, at, j}
			}
		}
	}
	conv.msgs = append(conv.msgs, m)
}

// addInput adds an input message of a call that continues conversation ci, leaving out
// the calls and results a tool event already carried in it; prev is the input message
// before it, nil for the first.
func (c *Conversations) addInput(ci int, m Message, prev *Message) {
	if len(m.Calls) == 0 && len(m.Results) == 0 {
		c.add(ci, m)
		return
	}
	var calls []Call
	var results []Result
	var carrier *Message // a message a tool event made holding one of m's calls
	for _, call := range m.Calls {
		if at, ok := c.knownCall(ci, call); ok {
			if c.made[loc{at.conv, at.msg, 0}] {
				carrier = &c.convs[at.conv].msgs[at.msg]
			}
			continue
		}
		calls = append(calls, call)
	}
	idless := 0 // the results without an id so far
	for _, r := range m.Results {
		if c.knownResult(ci, r) {
			continue
		}
		if !r.HasID {
			idless++
			if prev != nil && idless <= len(prev.Calls) && c.resent(ci, r, prev.Calls[idless-1].Tool) {
				continue
			}
		}
		if at, ok := c.calls[r.CallID]; ok && r.HasID && at.conv != ci {
			c.add(at.conv, Message{Role: "tool", Content: r.Content, Results: []Result{r}})
			continue
		}
		results = append(results, r)
	}
	switch {
	case len(calls) == len(m.Calls) && len(results) == len(m.Results):
		c.add(ci, m)
	case len(calls) == 0 && len(results) == 0:
		if carrier != nil && carrier.Content == "" {
			carrier.Content = m.Content // the text the model wrote with the call
		}
	default:
		m.Calls, m.Results = calls, results
		c.add(ci, m)
	}
}

// knownCall reports whether call, in an input of conversation ci, is one the run holds
// already, and where: by id, else the first call of that tool without an id a tool event
// made in ci on its own, which takes call's id.
func (c *Conversations) knownCall(ci int, call Call) (loc, bool) {
	if call.HasID {
		if at, ok := c.calls[call.ID]; ok {
			return at, true
		}
	}
	conv := c.convs[ci]
	at, ok := c.claim(conv.idlessCalls, call.Tool)
	if !ok {
		return loc{}, false
	}
	if call.HasID {
		made := &conv.msgs[at.msg].Calls[at.idx]
		made.ID, made.HasID = call.ID, true
		c.calls[call.ID] = at
		// The event's result, the message after the call, answers it.
		if r := at.msg + 1; r < len(conv.msgs) && len(conv.msgs[r].Results) == 1 && !conv.msgs[r].Results[0].HasID {
			res := &conv.msgs[r].Results[0]
			res.CallID, res.HasID = call.ID, true
			c.results[call.ID] = loc{ci, r, 0}
			c.claimed[loc{ci, r, 0}] = true
		}
	}
	return at, true
}

// claim takes the first place under key that no input has met yet. Places are only ever
// claimed, so each is dropped from its list at most once.
func (c *Conversations) claim(by map[string][]loc, key string) (loc, bool) {
	list := by[key]
	for len(list) > 0 && c.claimed[list[0]] {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(by, key)
		return loc{}, false
	}
	c.claimed[list[0]] = true
	by[key] = list[1:]
	return list[0], true
}

// knownResult reports whether result r, in an input of conversation ci, is one the run
// holds already: by call id, else the first result without an id of the same text that a
// tool event carried in ci.
func (c *Conversations) knownResult(ci int, r Result) bool {
	if r.HasID {
		_, ok := c.results[r.CallID]
		return ok
	}
	_, ok := c.claim(c.convs[ci].idlessResults, r.Content)
	return ok
}

// resent reports whether r, a result without an id in an input of conversation ci that
// follows a message whose call of tool it answers by position, is one a tool event already
// gave that call: the first such result not met yet, whose call is of that tool and in the
// newest message holding calls (a Google ADK run records execute_tool's output as {}, and the
// next model call re-sends the call's real function_response). It then keeps the one result:
// the re-sent text where the event's says nothing (blankResult), and the failure either
// records. Answers whose calls a newer message follows are passed for good: the conversation
// went on without re-sending them.
func (c *Conversations) resent(ci int, r Result, tool string) bool {
	conv := c.convs[ci]
	for conv.nextAnswer < len(conv.answers) {
		a := conv.answers[conv.nextAnswer]
		if !c.claimed[a.res] && a.call.msg >= conv.batch {
			break
		}
		conv.nextAnswer++
	}
	if conv.nextAnswer == len(conv.answers) {
		return false
	}
	a := conv.answers[conv.nextAnswer]
	if conv.msgs[a.call.msg].Calls[a.call.idx].Tool != tool {
		return false
	}
	conv.nextAnswer++
	c.claimed[a.res] = true
	m := &conv.msgs[a.res.msg]
	have := &m.Results[a.res.idx]
	if blankResult(have.Content) && !blankResult(r.Content) {
		have.Content, m.Content = r.Content, r.Content
	}
	if !r.Success && have.Success {
		have.Success, have.Error = false, r.Error
	}
	return true
}

// blankResult reports whether a result's text says nothing: empty, or an empty JSON object,
// list or string, or null.
func blankResult(s string) bool {
	switch strings.TrimSpace(s) {
	case "", "{}", "[]", `""`, "null":
		return true
	}
	return false
}

// Tool adds a tool event: its result, or its failure to a result the messages already hold,
// goes to the call the model made (by id, else openCall's); with no such call, the event
// makes the call and its result itself, in the conversation continued last.
func (c *Conversations) Tool(e ToolEvent) {
	res := Result{CallID: e.Call.ID, HasID: e.Call.HasID, Success: !e.Failed, Content: e.Result}
	if e.Failed {
		res.Error = e.Error
		if res.Error == "" {
			res.Error = "the tool's own record says it failed"
		}
	}
	if e.Call.HasID {
		if c.merge(e.Call.ID, res) {
			return
		}
		if at, ok := c.calls[e.Call.ID]; ok {
			c.result(at.conv, res)
			return
		}
	} else if at, ok := c.openCallOf(e.Call); ok {
		c.answered[at] = true
		call := c.convs[at.conv].msgs[at.msg].Calls[at.idx]
		res.CallID, res.HasID = call.ID, call.HasID
		if call.HasID && c.merge(call.ID, res) {
			return
		}
		conv := c.convs[at.conv]
		if !res.HasID {
			conv.answers = append(conv.answers, eventAnswer{res: loc{at.conv, len(conv.msgs), 0}, call: at})
		}
		c.result(at.conv, res)
		return
	}
	ci := c.last
	if ci < 0 {
		ci = c.start()
		c.last = ci
	}
	conv := c.convs[ci]
	at := loc{ci, len(conv.msgs), 0}
	c.add(ci, Message{Role: "assistant", Calls: []Call{e.Call}})
	c.made[at] = true
	c.answered[at] = true // by the event's own result
	if !e.Call.HasID {
		conv.idlessCalls[e.Call.Tool] = append(conv.idlessCalls[e.Call.Tool], at)
	}
	c.result(ci, res)
}

// merge marks the result of call id failed when the tool event says so, where the messages
// hold that result; false when they do not.
func (c *Conversations) merge(id string, res Result) bool {
	at, ok := c.results[id]
	if !ok {
		return false
	}
	r := &c.convs[at.conv].msgs[at.msg].Results[at.idx]
	if !res.Success {
		r.Success, r.Error = false, res.Error
	}
	return true
}

// result adds a tool event's result to conversation ci, as a tool message.
func (c *Conversations) result(ci int, res Result) {
	conv := c.convs[ci]
	at := loc{ci, len(conv.msgs), 0}
	c.add(ci, Message{Role: "tool", Content: res.Content, Results: []Result{res}})
	if !res.HasID {
		conv.idlessResults[res.Content] = append(conv.idlessResults[res.Content], at)
	}
}

// addOpen adds the call at l, of the batch that starts at message batch of its
// conversation, to the open calls under key; the calls are added in the order they were made.
func (c *Conversations) addOpen(by map[string][]openCalls, key string, l loc, batch int) {
	list := by[key]
	if n := len(list); n > 0 {
		if last := &list[n-1]; last.conv == l.conv && last.batch == batch {
			last.calls = append(last.calls, l)
			return
		}
	}
	by[key] = append(list, openCalls{conv: l.conv, batch: batch, calls: []loc{l}})
}

// openCallOf finds the call a tool event without a call id answers: the open call of its tool
// whose arguments equal the event's (argsKey), else openCall's of its tool. Two calls of one
// tool in two model messages (Berlin, then New York) are answered by their own records,
// whatever order the records come in.
func (c *Conversations) openCallOf(e Call) (loc, bool) {
	c.keyCalls()
	if at, ok := c.openCall(c.byArgs, argsKey(e.Tool, e.Args, e.ArgsValid)); ok {
		return at, true
	}
	return c.openCall(c.open, e.Tool)
}

// keyCalls puts the calls made since the last tool event without a call id into byArgs, in
// the order they were made: each call is keyed once.
func (c *Conversations) keyCalls() {
	for _, b := range c.unkeyed {
		call := &c.convs[b.l.conv].msgs[b.l.msg].Calls[b.l.idx]
		c.addOpen(c.byArgs, argsKey(call.Tool, call.Args, call.ArgsValid), b.l, b.batch)
	}
	c.unkeyed = c.unkeyed[:0]
}

// argsKey is a call's tool and arguments as one key: JSON arguments as a canonical JSON value
// (object keys sorted at every level, numbers as written, no space), so that two records of
// one call compare equal however each writer spaced and ordered them; other arguments as
// their text.
func argsKey(tool string, args []byte, valid bool) string {
	key := append([]byte(tool), 0)
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if valid && d.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(append(append(key, 'j'), b...))
		}
	}
	return string(append(append(key, 't'), args...))
}

// openCall finds the call under key (a tool, or a tool and its arguments) a tool event
// without a call id answers: the first unanswered call in the newest batch that holds an
// unanswered one. A batch is
// the calls of one model message, or of consecutive messages of one conversation that all
// make calls (a tracer that records each block of a model's answer as a message of its own,
// as the Claude Agent SDK's does, splits one answer's parallel calls so; a conversation has
// a result or other message between two answers), made one after another in the run.
// Parallel calls of one tool are answered in their order; a later batch's calls win over an
// earlier one's (a sub-agent's over the call that started it). Calls are only ever marked
// answered and each batch's are met from its first on, so each call is looked at a bounded
// number of times: the calls of a run cost linear time in all.
func (c *Conversations) openCall(by map[string][]openCalls, key string) (loc, bool) {
	list := by[key]
	for len(list) > 0 {
		m := &list[len(list)-1]
		for m.next < len(m.calls) && c.answered[m.calls[m.next]] {
			m.next++
			c.scanned++
		}
		if m.next < len(m.calls) {
			c.scanned++
			by[key] = list
			return m.calls[m.next], true
		}
		list = list[:len(list)-1]
	}
	delete(by, key)
	return loc{}, false
}

// Messages returns the run's messages: each conversation's, in the order they started.
func (c *Conversations) Messages() []Message {
	n := 0
	for _, conv := range c.convs {
		n += len(conv.msgs)
	}
	out := make([]Message, 0, n)
	for _, conv := range c.convs {
		out = append(out, conv.msgs...)
	}
	return out
}

// sameMessage reports whether two messages are one turn seen twice: the same role and the
// same calls (by id, or tool where there is none), results (by call id) or else text.
func sameMessage(a, c *Message) bool {
	if a.Role != c.Role || len(a.Calls) != len(c.Calls) || len(a.Results) != len(c.Results) {
		return false
	}
	for i := range a.Calls {
		x, y := &a.Calls[i], &c.Calls[i]
		if x.HasID != y.HasID || x.ID != y.ID || (!x.HasID && x.Tool != y.Tool) {
			return false
		}
	}
	for i := range a.Results {
		if a.Results[i].CallID != c.Results[i].CallID {
			return false
		}
	}
	if len(a.Calls) > 0 || len(a.Results) > 0 {
		return true
	}
	return a.Content == c.Content
}
