package trace

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgate/agentgate/gate/input"
)

// seedFile adds a test data file to the fuzzer's corpus.
func seedFile(f *testing.F, name string) {
	data, err := os.ReadFile(filepath.Join("testdata", "formats", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
}

// checkFormatError fails unless err is nil or an *input.Error naming file.
func checkFormatError(t *testing.T, err error, file string) {
	t.Helper()
	var ie *input.Error
	if err != nil && (!errors.As(err, &ie) || ie.File == "" || ie.File[:len(file)] != file) {
		t.Fatalf("error %T %v: want an *input.Error naming %s", err, err, file)
	}
}

// FuzzOTLP feeds arbitrary bytes to the OTLP reader: it must return traces with ids, or an
// *input.Error, and never panic.
func FuzzOTLP(f *testing.F) {
	for _, name := range []string{"otlp-genai.json", "otlp-openinference.jsonl", "otlp-openllmetry.json"} {
		seedFile(f, name)
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"tool_call\"}]}]"}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		traces, err := ReadOTLP("f.json", data)
		checkFormatError(t, err, "f.json")
		for _, tr := range traces {
			if tr.ID == "" || tr.Shape != ShapeOTLP {
				t.Fatalf("trace %+v", tr)
			}
		}
	})
}

// FuzzInspectJSON feeds arbitrary bytes to the reader of Inspect logs written as JSON.
func FuzzInspectJSON(f *testing.F) {
	seedFile(f, "inspect-tools.json")
	f.Add([]byte(`{"version":2,"eval":{},"samples":[{"id":1,"epoch":1,"messages":[{"role":"tool","content":[{"type":"text","text":"attachment://a"}]}],"attachments":{"a":"x"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachInspectJSON(context.Background(), "f.json", data, Options{}, func(tr *Trace) error {
			if tr.ID == "" || tr.Task == "" {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.json")
	})
}

// FuzzInspectEval feeds arbitrary bytes to the reader of .eval archives.
func FuzzInspectEval(f *testing.F) {
	seedFile(f, "inspect-tools.eval")
	f.Fuzz(func(t *testing.T, data []byte) {
		err := eachEval(context.Background(), "f.eval", bytes.NewReader(data), int64(len(data)), Options{}, func(tr *Trace) error {
			if tr.ID == "" {
				t.Fatalf("trace %+v", tr)
			}
			return nil
		})
		checkFormatError(t, err, "f.eval")
	})
}
