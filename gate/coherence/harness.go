package coherence

import (
	"bufio"
	"io"

	"github.com/agentgate/agentgate/gate/pystr"
)

// DefaultHarnessModel is the "model" a HarnessReport names when its tasks did not all come from
// RCS harness results files naming the same model.
const DefaultHarnessModel = "agentgate"

// HarnessReport is the results file of the RCS harness (benchmark.py), what `agentgate rcs`
// prints (docs/design.md#one-binary) so that it can replace the harness in a team's scripts. Numbers are
// rounded to 4 decimals as the harness rounds them; the gate's own report keeps them unrounded.
type HarnessReport struct {
	Model      string          `json:"model"`
	AverageRCS float64         `json:"average_rcs"` // Round4 of the mean of the unrounded scores
	Results    []HarnessResult `json:"results"`
}

// HarnessResult is one task of a HarnessReport.
type HarnessResult struct {
	TaskID          string  `json:"task_id"`
	RCS             float64 `json:"rcs"` // rounded to 4 decimals
	Intent          string  `json:"intent"`
	Understanding   string  `json:"understanding"`
	Action          string  `json:"action"`
	ReferenceAction string  `json:"reference_action"`
}

// NewHarnessReport builds the harness report of tasks scored as results: results[i] is the
// score of tasks[i] (pairs past the shorter slice are ignored). The model is the one the tasks'
// harness results file named, when they all name the same one, else DefaultHarnessModel. As
// in the harness, average_rcs is the mean of the unrounded scores, then rounded, and 0 when
// there are no tasks.
func NewHarnessReport(tasks []Task, results []TaskResult) HarnessReport {
	n := min(len(tasks), len(results))
	r := HarnessReport{Model: DefaultHarnessModel, Results: make([]HarnessResult, 0, n)}
	sum := 0.0
	model, same := "", true
	for i, t := range tasks[:n] {
		if i == 0 {
			model = t.Model
		} else if t.Model != model {
			same = false
		}
		r.Results = append(r.Results, HarnessResult{
			TaskID:          t.ID,
			RCS:             Round4(results[i].RCS),
			Intent:          t.Intent,
			Understanding:   t.Understanding,
			Action:          t.Action,
			ReferenceAction: t.ReferenceAction,
		})
		sum += results[i].RCS
	}
	if same && model != "" {
		r.Model = model
	}
	if n > 0 {
		r.AverageRCS = Round4(sum / float64(n))
	}
	return r
}

// Round4 rounds x to 4 decimals as Python's round(x, 4) does, as the harness rounds its figures.
func Round4(x float64) float64 { return pystr.Round4(x) }

// AppendJSON appends the report to dst byte for byte as the harness writes it,
// json.dump(results, f, indent=2, ensure_ascii=False): two-space indentation, non-ASCII text
// as it is, numbers as Python's repr (0.78, 1.0), no final newline. Go's encoding/json would
// write the same values differently (1 for 1.0, \u003c for <).
func (r HarnessReport) AppendJSON(dst []byte) []byte {
	dst = appendHarnessHead(dst, r.Model, r.AverageRCS, len(r.Results))
	for i, res := range r.Results {
		dst = appendHarnessResult(dst, res, i == 0)
	}
	return appendHarnessTail(dst, len(r.Results))
}

// appendHarnessHead appends what comes before the report's first result: the model, the
// average and the opening of the results array (all of it when there are no results).
func appendHarnessHead(dst []byte, model string, average float64, n int) []byte {
	dst = append(dst, "{\n  \"model\": "...)
	dst = pystr.AppendJSONString(dst, model, false)
	dst = append(dst, ",\n  \"average_rcs\": "...)
	dst = pystr.AppendJSONFloat(dst, average)
	if n == 0 {
		return append(dst, ",\n  \"results\": []"...)
	}
	return append(dst, ",\n  \"results\": ["...)
}

// appendHarnessResult appends one result of the report's results array.
func appendHarnessResult(dst []byte, res HarnessResult, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, "\n    {\n      \"task_id\": "...)
	dst = pystr.AppendJSONString(dst, res.TaskID, false)
	dst = append(dst, ",\n      \"rcs\": "...)
	dst = pystr.AppendJSONFloat(dst, res.RCS)
	dst = append(dst, ",\n      \"intent\": "...)
	dst = pystr.AppendJSONString(dst, res.Intent, false)
	dst = append(dst, ",\n      \"understanding\": "...)
	dst = pystr.AppendJSONString(dst, res.Understanding, false)
	dst = append(dst, ",\n      \"action\": "...)
	dst = pystr.AppendJSONString(dst, res.Action, false)
	dst = append(dst, ",\n      \"reference_action\": "...)
	dst = pystr.AppendJSONString(dst, res.ReferenceAction, false)
	return append(dst, "\n    }"...)
}

// appendHarnessTail appends what comes after the report's last result.
func appendHarnessTail(dst []byte, n int) []byte {
	if n > 0 {
		dst = append(dst, "\n  ]"...)
	}
	return append(dst, "\n}"...)
}

// A HarnessWriter writes the harness report of tasks as they are scored, so that memory does
// not grow with their number: the report's head holds the model and the average of all tasks,
// so each result goes to a body writer (a temporary file) as it comes, and WriteTo writes the
// head and then copies the body. Its bytes are those of NewHarnessReport(...).AppendJSON.
type HarnessWriter struct {
	body  *bufio.Writer
	buf   []byte
	n     int
	sum   float64 // unrounded scores, summed in task order as the harness sums them
	model string  // the first task's model
	mixed bool    // some task names another model
}

// NewHarnessWriter returns a HarnessWriter whose results go to body.
func NewHarnessWriter(body io.Writer) *HarnessWriter {
	return &HarnessWriter{body: bufio.NewWriterSize(body, 64<<10)}
}

// Add writes the result of task t, scored as r.
func (h *HarnessWriter) Add(t Task, r TaskResult) error {
	if h.n == 0 {
		h.model = t.Model
	} else if t.Model != h.model {
		h.mixed = true
	}
	h.buf = appendHarnessResult(h.buf[:0], HarnessResult{
		TaskID:          t.ID,
		RCS:             Round4(r.RCS),
		Intent:          t.Intent,
		Understanding:   t.Understanding,
		Action:          t.Action,
		ReferenceAction: t.ReferenceAction,
	}, h.n == 0)
	h.n++
	h.sum += r.RCS
	_, err := h.body.Write(h.buf)
	return err
}

// Finish writes the whole report to out: its head, the results read back from body (what the
// body writer received), and its end, without a final newline.
func (h *HarnessWriter) Finish(out io.Writer, body io.Reader) error {
	if err := h.body.Flush(); err != nil {
		return err
	}
	model, average := DefaultHarnessModel, 0.0
	if !h.mixed && h.model != "" {
		model = h.model
	}
	if h.n > 0 {
		average = Round4(h.sum / float64(h.n))
	}
	if _, err := out.Write(appendHarnessHead(nil, model, average, h.n)); err != nil {
		return err
	}
	if _, err := io.Copy(out, body); err != nil {
		return err
	}
	_, err := out.Write(appendHarnessTail(nil, h.n))
	return err
}
