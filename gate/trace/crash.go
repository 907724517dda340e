package trace

import (
	"strings"

	"github.com/agentgate/agentgate/internal/jsonscan"
)

// A run that crashed before its agent took a turn leaves an empty trajectory and the error the
// harness caught: tau-bench's run.py writes traj [] with info.error (str(e)) and
// info.traceback; other harnesses a top-level "error". Such a run is not a format read blind
// but a crash, and Trace.Crash holds the harness's own words for it, which the reliability
// evaluator reports as the run's finding (docs/trace-formats.md, "Blind reads and crashes").

// maxCrashText is the most of the harness's error text a trace keeps.
const maxCrashText = 2000

// crashText is what the harness recorded of a crash of a record with no agent turn: info.error,
// else the last line of info.traceback (the exception), else a top-level error; "" when it
// recorded none.
func (d *decoder) crashText(jr *jsonRecord) string {
	for _, r := range [...]ref{jr.InfoError, jr.InfoTraceback, jr.Error} {
		if s := crashString(d.raw(r)); s != "" {
			return s
		}
	}
	return ""
}

// crashString is the error text of a recorded error: a string's last non-empty line (the
// exception a traceback ends with), cut to maxCrashText; "" for anything else.
func crashString(raw []byte) string {
	if jsonscan.KindOfValue(raw) != jsonscan.KindString {
		return ""
	}
	s := strings.TrimSpace(jsonscan.Unquote(raw, jsonscan.Replace))
	if strings.HasPrefix(s, "Traceback (most recent call last):") {
		if i := strings.LastIndexByte(s, '\n'); i >= 0 {
			s = strings.TrimSpace(s[i+1:])
		}
	}
	if len(s) > maxCrashText {
		s = s[:maxCrashText]
	}
	return s
}
