package trace

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// Side files (docs/trace-formats.md, "The folder a harness writes"): a folder given as input
// holds, beside the traces, the files the harness writes with them: mini-swe-agent's
// preds.json (a map of instance ids to patches), SWE-agent's all_preds.jsonl, SWE-bench and
// sb-cli reports (the runs' outcomes), tau2-bench's results.json of its "dir" format (the
// run's metadata, its simulations being the files of simulations/), an Inspect log with no
// samples. They are told by their content, each by the Side rule of its format's row; the plan
// skips them and the report lists them in one note.

// openHandsSide says why an OpenHands record is a side file's: eval_infer.py's
// output.swebench_eval.jsonl holds the runs' test results, no run.
func openHandsSide(data []byte) string {
	var run, results bool
	_, _ = jsonscan.EachMember(data, jsonscan.SkipSpace(data, 0), func(key []byte, v, e int) error {
		switch jsonscan.Unquote(key, jsonscan.Replace) {
		case "history", "messages", "fncall_messages", "raw_completions":
			run = run || (string(data[v:e]) != "null" && !isEmptyContainer(data[v:e]))
		case "test_result":
			results = true
		}
		return nil
	})
	if results && !run {
		return "OpenHands evaluation results: the runs' outcomes, not runs"
	}
	return ""
}

// evalSide says why an Inspect .eval log is a side file: it holds no sample.
func evalSide(path string) string {
	file, zr, _ := openEval(path)
	if zr == nil {
		return "" // its reader says what is wrong
	}
	defer file.Close()
	for _, zf := range zr.File {
		if strings.HasPrefix(zf.Name, "samples/") && strings.HasSuffix(zf.Name, ".json") {
			return ""
		}
	}
	return noSamples
}

// openEval opens an Inspect .eval archive for a look at its members, as a side file is told:
// the file to close, its zip directory and its size; a nil reader when it cannot be opened or
// holds more members than its reader would take (that reader then says what is wrong).
func openEval(path string) (*os.File, *zip.Reader, int64) {
	file, err := input.OpenRegular(path)
	if err != nil {
		return nil, nil, 0
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, 0
	}
	zr, err := zip.NewReader(file, st.Size())
	if err != nil || len(zr.File) > maxEvalMembers {
		file.Close()
		return nil, nil, 0
	}
	return file, zr, st.Size()
}

// noSamples is why an Inspect log with no sample is a side file.
const noSamples = "an Inspect log with no samples"

// tau2Side says why a tau2-bench results file is a side file: it is the results.json of tau2's
// "dir" format, with no simulations list and a simulations/ folder beside it, whose files are
// the traces (tau2's Results.load reads them from there).
func tau2Side(path string) string {
	if !hasSimulationsDir(path) {
		return ""
	}
	data, err := readDocument(path)
	if err != nil || checkDoc(path, data) != nil {
		return ""
	}
	if tau2HasSimulations(data) {
		return ""
	}
	return "tau2-bench run metadata: its simulations are the files of simulations/"
}

// hasSimulationsDir reports whether a simulations/ directory sits beside path.
func hasSimulationsDir(path string) bool {
	st, err := os.Stat(filepath.Join(filepath.Dir(path), "simulations"))
	return err == nil && st.IsDir()
}

// tau2HasSimulations reports whether a tau2-bench results document holds a simulations list
// that is not null (it may be empty).
func tau2HasSimulations(data []byte) bool {
	found := false
	_, _ = jsonscan.EachMember(data, jsonscan.SkipSpace(data, 0), func(key []byte, v, _ int) error {
		if jsonscan.KeyIs(key, "simulations") && !bytes.HasPrefix(data[v:], []byte("null")) {
			found = true
		}
		return nil
	})
	return found
}

// errFirst stops a read after its first record.
var errFirst = errors.New("first record read")

// recordsSide says why a file of records is a side file, from its first record: one that is
// an object with no message list (under any of listKeys) and none of the members of a trace
// (trace_id, role) is not a trace the decoder could read. What it is, where its content says
// so: predictions (instance ids and patches), a SWE-bench or sb-cli report (the runs'
// outcomes), or else its keys.
func recordsSide(path string) string { return firstRecordSide(path, sideRecord) }

// firstRecordSide is what side says of the first record of the file at path; "" when the file
// cannot be read, whose reader then says why.
func firstRecordSide(path string, side func([]byte) string) string {
	var why string
	err := input.Each(path, func(rec input.Record) error {
		why = side(rec.Data)
		return errFirst
	})
	if err != nil && !errors.Is(err, errFirst) {
		return "" // its reader says what is wrong
	}
	return why
}

// sideRecord says why a record is not a trace but a side file's, or "" when it may be a
// trace.
func sideRecord(data []byte) string {
	start := jsonscan.SkipSpace(data, 0)
	if start >= len(data) || data[start] != '{' {
		return ""
	}
	var keys []string
	var firstValue int = -1
	traceLike := false
	_, err := jsonscan.EachMember(data, start, func(key []byte, v, _ int) error {
		k := jsonscan.Unquote(key, jsonscan.Replace)
		if firstValue < 0 {
			firstValue = v
		}
		if len(keys) < 8 {
			keys = append(keys, k)
		}
		switch k {
		case "messages", "trajectory", "traj", "history", "conversations", "ticks", "trace_id", "role", "resourceSpans", "samples", "simulations":
			traceLike = true
		}
		return nil
	})
	if err != nil || traceLike || len(keys) == 0 {
		return ""
	}
	has := func(k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	switch {
	case has("model_patch") && has("instance_id"):
		return "predictions: an instance id and its patch a line"
	case has("resolved_ids") || (has("resolved_instances") && has("total_instances")):
		return "a SWE-bench run report: the runs' outcomes, give it with --outcomes"
	}
	if firstValue >= 0 && data[firstValue] == '{' {
		inner := memberKeys(data, firstValue)
		switch {
		case inner["model_patch"]:
			return "predictions: a map of instance ids to patches"
		case inner["resolved"]:
			return "a SWE-bench report: the runs' outcomes, give it with --outcomes"
		}
	}
	switch input.LooksLike(data) {
	case input.KindPairs:
		return "a pairs file, not traces"
	case input.KindLabels:
		return "a label file, not traces"
	case input.KindTasks:
		return "a tasks file, not traces"
	}
	return "no message list: its first record has keys " + input.Cut(strings.Join(keys, ", "))
}

// memberKeys is the set of keys of the object at data[i].
func memberKeys(data []byte, i int) map[string]bool {
	out := map[string]bool{}
	_, _ = jsonscan.EachMember(data, i, func(key []byte, _, _ int) error {
		if len(out) < 64 {
			out[jsonscan.Unquote(key, jsonscan.Replace)] = true
		}
		return nil
	})
	return out
}

// InspectLogID is what tells an Inspect log apart from another, for a log written both as .eval
// and as .json: the eval_id of its eval header (with run_id and task_id when it has none),
// from the .eval's header.json or the head of the .json log; "" when it has none.
func InspectLogID(path string, f Format) string {
	var head []byte
	switch f {
	case FormatInspectEval:
		file, zr, size := openEval(path)
		if zr == nil {
			return ""
		}
		defer file.Close()
		zr.RegisterDecompressor(zipMethodZstd, zstdDecompressor)
		for _, zf := range zr.File {
			if zf.Name == "header.json" {
				var err error
				limited := &input.LimitedReader{Name: path, Packed: func() int64 { return size }}
				if head, err = readMember(zf, limited); err != nil {
					return ""
				}
			}
		}
	case FormatInspectJSON:
		in, err := input.Open(path)
		if err != nil {
			return ""
		}
		defer in.Close()
		head = make([]byte, sniffBytes)
		n, _ := in.Read(head)
		for n < len(head) {
			m, err := in.Read(head[n:])
			n += m
			if err != nil || m == 0 {
				break
			}
		}
		head = head[:n]
	default:
		return ""
	}
	return evalID(head)
}

// evalID reads eval.eval_id (else eval.run_id and eval.task_id) from the start of a log.
func evalID(head []byte) string {
	var id, run, task string
	_, _ = jsonscan.EachMember(head, jsonscan.SkipSpace(head, 0), func(key []byte, v, _ int) error {
		if !jsonscan.KeyIs(key, "eval") || v >= len(head) || head[v] != '{' {
			return nil
		}
		_, _ = jsonscan.EachMember(head, v, func(k []byte, s, e int) error {
			val, _ := stringValue(head[s:e])
			switch {
			case jsonscan.KeyIs(k, "eval_id"):
				id = val
			case jsonscan.KeyIs(k, "run_id"):
				run = val
			case jsonscan.KeyIs(k, "task_id"):
				task = val
			}
			return nil
		})
		return errFirst
	})
	if id != "" {
		return id
	}
	if run != "" || task != "" {
		return run + "/" + task
	}
	return ""
}

// eachSimulationFile reads the simulations of tau2's "dir" format, simulations/*.json beside
// the results file at path, in the sorted order tau2's Results.load reads them.
func eachSimulationFile(ctx context.Context, path string, o Options, fn func(*Trace) error) error {
	dir := filepath.Join(filepath.Dir(path), "simulations")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return &input.Error{File: dir, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	for _, f := range files { // sorted
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := EachWith(f, o, fn); err != nil {
			return err
		}
	}
	return nil
}

// inspectLogsOnce is the folder rule of Inspect's .json logs: a log a folder holds twice, as
// name.eval and name.json (inspect log convert writes one from the other), is read once, from
// the .eval; the .json is skipped. Two logs of one name whose eval ids differ are two logs,
// both read.
func inspectLogsOnce(files []File) (keep []File, skipped []Skipped) {
	evals := map[string]string{} // folder-held .eval logs by path without extension
	for _, f := range files {
		if f.Folder != "" && f.Format == FormatInspectEval {
			evals[stem(f.Path)] = f.Path
		}
	}
	if len(evals) == 0 {
		return files, nil
	}
	keep = files[:0]
	for _, f := range files {
		if eval, ok := evals[stem(f.Path)]; ok && f.Folder != "" && f.Format == FormatInspectJSON {
			a, b := InspectLogID(eval, FormatInspectEval), InspectLogID(f.Path, FormatInspectJSON)
			if a == b || a == "" || b == "" {
				skipped = append(skipped, Skipped{f.Path, f.Folder, "the same Inspect log as " + filepath.Base(eval) + ", read once"})
				continue
			}
		}
		keep = append(keep, f)
	}
	return keep, skipped
}

// stem is path without its extension (.eval, .json, and a .gz after them).
func stem(path string) string {
	s := strings.TrimSuffix(path, filepath.Ext(path))
	if strings.EqualFold(filepath.Ext(path), ".gz") {
		s = strings.TrimSuffix(s, filepath.Ext(s))
	}
	return s
}

// completionLogsBesideOutput is the folder rule of OpenHands: the LLM completion logs it
// writes beside its output (llm_completions/<instance_id>/*.json, one a model call) under a
// folder that holds that output too are skipped: each is a call of a run the output already
// holds, and read as runs of their own they would count every run again, once a call.
// Without the output they are the runs.
func completionLogsBesideOutput(files []File) (keep []File, skipped []Skipped) {
	outputs := map[string]string{} // folder → the OpenHands output in it
	for _, f := range files {
		if f.Folder != "" && f.Format == FormatOpenHands && !isCompletionLog(f.Path) {
			if _, ok := outputs[f.Folder]; !ok {
				outputs[f.Folder] = f.Path
			}
		}
	}
	if len(outputs) == 0 {
		return files, nil
	}
	keep = files[:0]
	for _, f := range files {
		if out, ok := outputs[f.Folder]; ok && f.Format == FormatOpenHands && isCompletionLog(f.Path) {
			rel, err := filepath.Rel(f.Folder, out)
			if err != nil {
				rel = out
			}
			skipped = append(skipped, Skipped{f.Path, f.Folder, "an LLM call of a run " + filepath.ToSlash(rel) + " holds"})
			continue
		}
		keep = append(keep, f)
	}
	return keep, skipped
}

// isCompletionLog reports whether path lies in an llm_completions directory, where OpenHands
// writes its completion logs (openhands/llm/llm.py with log_completions).
func isCompletionLog(path string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(path)), "/") {
		if seg == "llm_completions" {
			return true
		}
	}
	return false
}

// latestCompletionLogs is the folder rule of OpenHands' completion logs read as the runs
// (llm_completions/<instance_id>/ or a submission's trajs/<instance_id>/, one log a model
// call): each call's log holds the conversation so far, so the run is its instance folder's
// latest log, as OpenHands' own convert_oh_folder_to_swebench_submission.sh takes it; the
// earlier ones are skipped. Latest is by the time.time() OpenHands names each log after
// (<model>-<time>.json), then by name.
func latestCompletionLogs(files []File) (keep []File, skipped []Skipped) {
	latest := map[string]string{} // instance folder → its latest log
	for _, f := range files {
		if f.Folder == "" || f.Format != FormatOpenHands {
			continue
		}
		if task, _ := completionLogName(f.Path); task != "" {
			dir := filepath.Dir(f.Path)
			if l, ok := latest[dir]; !ok || laterLog(f.Path, l) {
				latest[dir] = f.Path
			}
		}
	}
	if len(latest) == 0 {
		return files, nil
	}
	keep = files[:0]
	for _, f := range files {
		if l, ok := latest[filepath.Dir(f.Path)]; ok && f.Format == FormatOpenHands && f.Path != l {
			skipped = append(skipped, Skipped{f.Path, f.Folder, "an earlier LLM call of the run " + filepath.Base(l) + " holds"})
			continue
		}
		keep = append(keep, f)
	}
	return keep, skipped
}

// laterLog reports whether completion log a was written after b: the time in its name
// (<model>-<time>.json), else its name.
func laterLog(a, b string) bool {
	ta, oka := logTime(a)
	tb, okb := logTime(b)
	if oka && okb && ta != tb {
		return ta > tb
	}
	return a > b
}

// logTime is the time.time() a completion log is named after.
func logTime(path string) (float64, bool) {
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json")
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return 0, false
	}
	t, err := strconv.ParseFloat(name[i+1:], 64)
	return t, err == nil
}
