package trace

import (
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

func TestTextActions(t *testing.T) {
	for _, c := range []struct {
		name, record string
		want         []Message
	}{
		{"trajectory steps", `{"trajectory":[
			{"thought":"look","action":"ls -la\n","observation":"a.py"},
			{"response":"r","thought":"","action":"submit 'flag{x}'","observation":"Wrong flag!"},
			{"thought":"think only","action":"","observation":null}]}`,
			[]Message{
				{Role: "assistant", Content: "look",
					Calls:   []Call{{ID: "action-0", HasID: true, Tool: "ls", Args: []byte(`{"command":"ls -la"}`), ArgsValid: true}},
					Results: []Result{{CallID: "action-0", HasID: true, Success: true, Content: "a.py"}}},
				{Role: "assistant", Content: "r",
					Calls:   []Call{{ID: "action-1", HasID: true, Tool: "submit", Args: []byte(`{"command":"submit 'flag{x}'"}`), ArgsValid: true}},
					Results: []Result{{CallID: "action-1", HasID: true, Content: "Wrong flag!", Error: "Wrong flag!"}}},
				{Role: "assistant", Content: "think only"},
			}},
		{"history with action fields and fenced commands", `{"history":[
			{"role":"user","content":"fix it"},
			{"role":"assistant","content":"x","action":"find_file foo.py","message_type":"action"},
			{"role":"user","content":"No such file or directory","message_type":"observation"},
			{"role":"assistant","content":"Let me run it.\n` + "```bash\\npython a.py\\n```" + `","message_type":"action"},
			{"role":"user","content":"ok","message_type":"observation"},
			{"role":"assistant","content":"Here is code:\n` + "```\\nprint(1)\\n```" + `"},
			{"role":"user","content":"thanks"}]}`,
			[]Message{
				{Role: "user", Content: "fix it"},
				{Role: "assistant", Content: "x",
					Calls: []Call{{ID: "action-1", HasID: true, Tool: "find_file", Args: []byte(`{"command":"find_file foo.py"}`), ArgsValid: true}}},
				{Role: "user", Content: "No such file or directory",
					Results: []Result{{CallID: "action-1", HasID: true, Content: "No such file or directory", Error: "No such file or directory"}}},
				{Role: "assistant", Content: "Let me run it.\n```bash\npython a.py\n```",
					Calls: []Call{{ID: "action-3", HasID: true, Tool: "python", Args: []byte(`{"command":"python a.py"}`), ArgsValid: true}}},
				{Role: "user", Content: "ok", Results: []Result{{CallID: "action-3", HasID: true, Success: true, Content: "ok"}}},
				// no action and no message_type "action": a code block in a chat is not a call
				{Role: "assistant", Content: "Here is code:\n```\nprint(1)\n```"},
				{Role: "user", Content: "thanks"},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Decode(input.Record{File: "t.traj", Line: 1, Col: 1, Data: []byte(c.record)})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Messages) != len(c.want) {
				t.Fatalf("%d messages, want %d: %+v", len(tr.Messages), len(c.want), tr.Messages)
			}
			for i := range c.want {
				got, want := tr.Messages[i], c.want[i]
				if got.Role != want.Role || got.Content != want.Content || len(got.Calls) != len(want.Calls) || len(got.Results) != len(want.Results) {
					t.Fatalf("message %d = %+v, want %+v", i, got, want)
				}
				for j := range want.Calls {
					g, w := got.Calls[j], want.Calls[j]
					if g.ID != w.ID || g.HasID != w.HasID || g.Tool != w.Tool || string(g.Args) != string(w.Args) || g.ArgsValid != w.ArgsValid {
						t.Errorf("message %d call %d = %+v (%s), want %+v (%s)", i, j, g, g.Args, w, w.Args)
					}
				}
				for j := range want.Results {
					if got.Results[j] != want.Results[j] {
						t.Errorf("message %d result %d = %+v, want %+v", i, j, got.Results[j], want.Results[j])
					}
				}
			}
		})
	}
	// a step's action must be text
	_, err := Decode(input.Record{File: "t.traj", Line: 1, Col: 1, Data: []byte(`{"trajectory":[{"action":5,"observation":""}]}`)})
	if err == nil || err.Error() != `t.traj:1:26: field "trajectory[0].action": expected a string, found a number` {
		t.Errorf("err = %v", err)
	}
}
