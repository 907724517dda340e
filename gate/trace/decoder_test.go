package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/refdata"
	"github.com/agentgate/agentgate/test/gensuite"
)

// clone copies a trace out of a reusing Decoder's memory.
func clone(t *Trace) *Trace {
	c := *t
	c.ID, c.File = strings.Clone(t.ID), strings.Clone(t.File)
	c.Messages = make([]Message, len(t.Messages))
	for i, m := range t.Messages {
		m.Role, m.Content = strings.Clone(m.Role), strings.Clone(m.Content)
		calls := make([]Call, len(m.Calls))
		for j, k := range m.Calls {
			k.ID, k.Tool, k.Args = strings.Clone(k.ID), strings.Clone(k.Tool), bytes.Clone(k.Args)
			calls[j] = k
		}
		results := make([]Result, len(m.Results))
		for j, r := range m.Results {
			r.CallID, r.Content, r.Error = strings.Clone(r.CallID), strings.Clone(r.Content), strings.Clone(r.Error)
			results[j] = r
		}
		if m.Calls == nil {
			calls = nil
		}
		if m.Results == nil {
			results = nil
		}
		m.Calls, m.Results = calls, results
		c.Messages[i] = m
	}
	return &c
}

// TestDecoderReuse checks that a Decoder that reuses its memory, and one told the records are
// UTF-8, decode every record as Decode does, errors included, on generated traces of every
// kind, the project's fixtures and the real transcripts of the reference data.
func TestDecoderReuse(t *testing.T) {
	var recs []input.Record
	g := gensuite.NewTraces(3)
	for i := range 600 {
		if i == 300 {
			g.Messages, g.ContentBytes = 60, 30 // a few long traces in between
		}
		data := bytes.TrimSuffix(g.Append(nil), []byte("\n"))
		if i%97 == 5 {
			data = bytes.Replace(data, []byte(`"success": true`), []byte(`"success": "yes"`), 1)
		}
		recs = append(recs, input.Record{File: "g.jsonl", Line: i + 1, Col: 1, Data: data})
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "traces.jsonl"))
	var more []string
	if dir, ok := refdata.Optional(t, "transcripts"); ok {
		more, _ = filepath.Glob(filepath.Join(dir, "*"))
	}
	for _, f := range append(files, more...) {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		err := input.Each(f, func(r input.Record) error {
			r.Data = bytes.Clone(r.Data)
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	reuse := Decoder{Reuse: true}
	var plain Decoder
	for _, r := range recs {
		want, wantErr := Decode(r)
		got, err := reuse.Decode(r)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%s:%d: error %v, Decode says %v", r.File, r.Line, err, wantErr)
		}
		got2, err2 := plain.Decode(r)
		if (err2 == nil) != (wantErr == nil) || err2 != nil && err2.Error() != wantErr.Error() {
			t.Fatalf("%s:%d: error %v, Decode says %v", r.File, r.Line, err2, wantErr)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(clone(got), want) || !reflect.DeepEqual(got2, want) {
			t.Fatalf("%s:%d: the decoders disagree", r.File, r.Line)
		}
	}
}
