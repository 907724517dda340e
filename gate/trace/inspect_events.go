package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Inspect samples whose messages hold only the prompt (docs/design.md#harness-folders): some tasks (SciCode) keep
// the model's turns in the sample's events alone. Events are read as Inspect writes them
// (inspect_ai/event/_model.py, _tool.py, _span.py, commit 499e6152): a model event
// {"event": "model", "output": {"choices": [{"message": {"role": "assistant", "content",
// "tool_calls"}}]}} is the agent's turn, a tool event {"event": "tool", "id", "function",
// "arguments", "result", "error": {"type", "message"}} the result of its call, in the order
// they happened. The events of the scorers (the span named "scorers", or an old step event of
// type "scorer") are the graders' and end the run's.

// inspectEvent is one event of a sample. Members other events give other types (a model
// event's error is a string, a tool event's an object; a subtask's output is anything) are
// kept raw and read for the events that matter only.
type inspectEvent struct {
	Event  string          `json:"event"`
	Name   json.RawMessage `json:"name"`
	Type   json.RawMessage `json:"type"`
	Action json.RawMessage `json:"action"`
	Output json.RawMessage `json:"output"` // a model event's ModelOutput
	ID     json.RawMessage `json:"id"`     // a tool event's call id
	Result json.RawMessage `json:"result"` // a tool event's result
	Error  json.RawMessage `json:"error"`  // a tool event's {"type", "message"}
	Tools  json.RawMessage `json:"tools"`  // a model event's tools, ToolInfo (toolschema.go)
}

// str is a raw member's string value, "" when it is not a string.
func str(raw json.RawMessage) string {
	s, _ := stringValue(bytes.TrimSpace(raw))
	return s
}

type inspectOutput struct {
	Choices []struct {
		Message *inspectMessage `json:"message"`
	} `json:"choices"`
}

type inspectToolError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// lacksTurns reports whether the sample's messages hold no assistant message.
func (s *inspectSample) lacksTurns() bool {
	for i := range s.Messages {
		if s.Messages[i].Role == "assistant" {
			return false
		}
	}
	return true
}

// turnsFromEvents appends to msgs the agent's turns read from the sample's events, and the
// results of their tool calls, in order; msgs is returned as it is when the events hold no
// model output.
func (s *inspectSample) turnsFromEvents(msgs []Message) ([]Message, error) {
	out := msgs
	found := false
	for i := range s.Events {
		e := &s.Events[i]
		switch e.Event {
		case "span_begin":
			if n, ty := str(e.Name), str(e.Type); n == "scorers" || ty == "scorer" || ty == "scorers" {
				return withTurns(msgs, out, found), nil
			}
		case "step":
			if str(e.Action) == "begin" && (str(e.Type) == "scorer" || str(e.Name) == "scoring") {
				return withTurns(msgs, out, found), nil
			}
		case "model":
			var o inspectOutput
			if err := unmarshalRaw(e.Output, &o); err != nil {
				return nil, fmt.Errorf("events[%d].output: %v", i, err)
			}
			if len(o.Choices) == 0 || o.Choices[0].Message == nil {
				continue
			}
			m := o.Choices[0].Message
			if m.Role == "" {
				m.Role = "assistant"
			}
			var msg Message
			if err := s.message(m, &msg); err != nil {
				return nil, fmt.Errorf("events[%d].output.choices[0].message: %v", i, err)
			}
			out = append(out, msg)
			found = true
		case "tool":
			content, err := s.toolResult(e.Result)
			if err != nil {
				return nil, fmt.Errorf("events[%d].result: %v", i, err)
			}
			var te *inspectToolError
			if err := unmarshalRaw(e.Error, &te); err != nil {
				return nil, fmt.Errorf("events[%d].error: %v", i, err)
			}
			r := Result{Success: te == nil, Content: content}
			if id, ok := stringValue(bytes.TrimSpace(e.ID)); ok {
				r.CallID, r.HasID = id, true
			}
			if te != nil {
				r.Error = strings.TrimSuffix(te.Type+": "+te.Message, ": ")
				if r.Error == "" {
					r.Error = "error"
				}
			}
			out = append(out, Message{Role: "tool", Content: content, Results: []Result{r}})
		}
	}
	return withTurns(msgs, out, found), nil
}

// toolSchemas are the required parameters of the tools the sample's model events offered
// (toolschema.go), or nil when they describe none. Events mostly repeat one list: a list
// equal to the one before is read once.
func (s *inspectSample) toolSchemas() map[string][]string {
	var req map[string][]string
	var last json.RawMessage
	for i := range s.Events {
		if e := &s.Events[i]; e.Event == "model" && len(e.Tools) > 0 && !bytes.Equal(e.Tools, last) {
			req, last = addToolSchemas(req, e.Tools), e.Tools
		}
	}
	return req
}

// withTurns is out when the events gave a model turn, else msgs as they were.
func withTurns(msgs, out []Message, found bool) []Message {
	if !found {
		return msgs
	}
	return out
}

// toolResult is a tool event's result as text: a string, the text parts of a list of content,
// or the JSON text of any other value (a number, a boolean, an object).
func (s *inspectSample) toolResult(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"', '[':
		return s.content(raw)
	case '{':
		var part inspectPart
		if err := json.Unmarshal(raw, &part); err == nil && part.Type == "text" {
			return s.resolve(part.Text)
		}
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "", err
	}
	return b.String(), nil
}

// unmarshalRaw decodes raw into v; an absent or null value leaves v as it is.
func unmarshalRaw(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// keyedScorer finds the score that outcome-scorer "scorer/key" names, when no scorer has the
// whole name: the scorer before the last "/", and the key after it. score is -1 when there is
// none.
func keyedScorer(sample []byte, scores int, scorer string) (name string, score int, key string) {
	i := strings.LastIndex(scorer, "/")
	if i <= 0 || i == len(scorer)-1 {
		return "", -1, ""
	}
	base := scorer[:i]
	score = -1
	_, _ = jsonscan.EachMember(sample, scores, func(k []byte, start, _ int) error {
		if score < 0 && jsonscan.Unquote(k, jsonscan.Replace) == base {
			score = start
		}
		return nil
	})
	if score < 0 {
		return "", -1, ""
	}
	return base, score, scorer[i+1:]
}

// dictScore handles a score whose value, at sample[value], is a dict or a list (SciCode's
// {"Problem Correctness": 0, "Total Correct": 1, …}). With a key it is read from the dict
// (done is false, and the caller reads the key's value); a key the dict does not have is a
// problem. Without one, it is not an outcome, and the Outcome's Note says so, naming the keys
// to choose from.
func dictScore(sample []byte, value int, name, key, scorer string) (o Outcome, at int, problem string, done bool) {
	k := jsonscan.KindOfValue(sample[value:])
	if k != jsonscan.KindObject {
		if key != "" {
			return Outcome{}, value, fmt.Sprintf("scores.%s.value: %s, so outcome-scorer %s names no key of it", name, jsonscan.Expected("a dict", k), input.Quote(scorer)), true
		}
		if k != jsonscan.KindArray {
			return Outcome{}, 0, "", false
		}
		return Outcome{Note: fmt.Sprintf("the score of %s is a list: not read as an outcome", input.Quote(name))}, 0, "", true
	}
	var keys []string
	_, _ = jsonscan.EachMember(sample, value, func(kb []byte, _, _ int) error {
		keys = append(keys, jsonscan.Unquote(kb, jsonscan.Replace))
		return nil
	})
	if key == "" {
		if len(keys) == 0 {
			return Outcome{Note: fmt.Sprintf("the score of %s is an empty dict: not read as an outcome", input.Quote(name))}, 0, "", true
		}
		return Outcome{Note: fmt.Sprintf("the score of %s is a dict (%s): not read as an outcome; name one of its keys with outcome-scorer, as in %s", input.Quote(name), input.Cut(strings.Join(keys, ", ")), input.Quote(name+"/"+keys[0]))}, 0, "", true
	}
	for _, x := range keys {
		if x == key {
			return Outcome{}, 0, "", false
		}
	}
	return Outcome{}, value, fmt.Sprintf("scores.%s.value has no key %s (outcome-scorer %s); it has %s", name, input.Quote(key), input.Quote(scorer), input.Cut(strings.Join(keys, ", "))), true
}

// keyValue is where the value of member key of the object at sample[obj] starts.
func keyValue(sample []byte, obj int, key string) int {
	at := obj
	_, _ = jsonscan.EachMember(sample, obj, func(kb []byte, start, _ int) error {
		if at == obj && jsonscan.Unquote(kb, jsonscan.Replace) == key {
			at = start
		}
		return nil
	})
	return at
}
