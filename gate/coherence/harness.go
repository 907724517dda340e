package coherence

import (
	"github.com/agentgate/agentgate/gate/pystr"
)

// DefaultHarnessModel is the "model" a HarnessReport names when its tasks did not all come from
// RCS harness results files naming the same model.
const DefaultHarnessModel = "agentgate"

// HarnessReport is the results file of the RCS harness (benchmark.py), what `agentgate rcs`
// prints (SPEC §5) so that it can replace the harness in a team's scripts. Numbers are
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
	dst = append(dst, "{\n  \"model\": "...)
	dst = pystr.AppendJSONString(dst, r.Model, false)
	dst = append(dst, ",\n  \"average_rcs\": "...)
	dst = pystr.AppendJSONFloat(dst, r.AverageRCS)
	dst = append(dst, ",\n  \"results\": "...)
	if len(r.Results) == 0 {
		dst = append(dst, "[]"...)
	} else {
		dst = append(dst, '[')
		for i, res := range r.Results {
			if i > 0 {
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
			dst = append(dst, "\n    }"...)
		}
		dst = append(dst, "\n  ]"...)
	}
	return append(dst, "\n}"...)
}
