package coherence

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
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

// Round4 rounds x to 4 decimals exactly as Python's round(x, 4) does: correctly rounded from
// x's binary value, ties (which only exactly representable halves can be) to even.
func Round4(x float64) float64 {
	y, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	if err != nil {
		return x // ±Inf and NaN round to themselves
	}
	return y
}

// AppendJSON appends the report to dst byte for byte as the harness writes it,
// json.dump(results, f, indent=2, ensure_ascii=False): two-space indentation, non-ASCII text
// as it is, numbers as Python's repr (0.78, 1.0), no final newline. Go's encoding/json would
// write the same values differently (1 for 1.0, \u003c for <).
func (r HarnessReport) AppendJSON(dst []byte) []byte {
	dst = append(dst, "{\n  \"model\": "...)
	dst = appendPyString(dst, r.Model)
	dst = append(dst, ",\n  \"average_rcs\": "...)
	dst = appendPyFloat(dst, r.AverageRCS)
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
			dst = appendPyString(dst, res.TaskID)
			dst = append(dst, ",\n      \"rcs\": "...)
			dst = appendPyFloat(dst, res.RCS)
			dst = append(dst, ",\n      \"intent\": "...)
			dst = appendPyString(dst, res.Intent)
			dst = append(dst, ",\n      \"understanding\": "...)
			dst = appendPyString(dst, res.Understanding)
			dst = append(dst, ",\n      \"action\": "...)
			dst = appendPyString(dst, res.Action)
			dst = append(dst, ",\n      \"reference_action\": "...)
			dst = appendPyString(dst, res.ReferenceAction)
			dst = append(dst, "\n    }"...)
		}
		dst = append(dst, "\n  ]"...)
	}
	return append(dst, "\n}"...)
}

// appendPyFloat appends x as Python's json module writes a float: repr(x), which is the
// shortest text that reads back as x, in positional notation for 1e-4 <= |x| < 1e16 (with ".0"
// when it is whole) and scientific notation otherwise; NaN and ±Infinity as json writes them.
func appendPyFloat(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "NaN"...)
	case math.IsInf(x, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(x, -1):
		return append(dst, "-Infinity"...)
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // d[.ddd]e±XX: the shortest digits, as repr's
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if x == 0 || (-4 <= exp && exp < 16) {
		f := strconv.FormatFloat(x, 'f', -1, 64)
		dst = append(dst, f...)
		if !strings.Contains(f, ".") {
			dst = append(dst, ".0"...)
		}
		return dst
	}
	return append(dst, e...) // Go's exponent form is Python's: 1e-05, 1.5e+16
}

// appendPyString appends s as a JSON string the way Python's json module writes it with
// ensure_ascii=False: only '"', '\\' and control characters are escaped. Invalid UTF-8, which a
// Python str cannot hold, becomes U+FFFD.
func appendPyString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				if c < 0x20 {
					dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
				} else {
					dst = append(dst, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
