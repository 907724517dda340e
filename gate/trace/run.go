package trace

// Run is what the report keeps of one run's own outcome and cost (docs/design.md#outcomes), on the run's
// record (reliability.Result.Run) so that it travels with the run's verdict and signals:
// nothing pairs them by position in two lists (docs/design.md#run-identity). Tokens is the run's total tokens,
// -1 when its usage was not recorded; Success is decided by Decide.
type Run struct {
	Value   float64
	Tokens  int64
	Known   bool
	IsBool  bool
	Success bool
	// Decided is true when Success was read as decided (from a report), not to be decided
	// again from Value.
	Decided bool
}

// RunOf is the Run of outcome o of a trace that used u, its success not yet decided.
func RunOf(o Outcome, u Usage) Run {
	r := Run{Known: o.Known, Value: o.Value, IsBool: o.IsBool, Tokens: -1}
	if u.Recorded {
		r.Tokens = u.Total
	}
	return r
}

// Set replaces r's outcome with o, keeping its tokens.
func (r *Run) Set(o Outcome) {
	r.Known, r.Value, r.IsBool, r.Success, r.Decided = o.Known, o.Value, o.IsBool, false, false
}

// Decide decides whether the run succeeded: a boolean as given, a number when at least
// threshold.
func (r *Run) Decide(threshold float64) {
	if r.Known && !r.Decided {
		r.Success = Outcome{Known: true, Value: r.Value, IsBool: r.IsBool}.Succeeded(threshold)
	}
}

// OutcomeJSON is a trace's "outcome" in the JSON report: {"value", "success", "tokens"},
// tokens left out when the run recorded no usage.
type OutcomeJSON struct {
	Value   float64 `json:"value"`
	Success bool    `json:"success"`
	Tokens  *int64  `json:"tokens,omitempty"`
}

// JSON returns r as a trace's "outcome", nil when r is not known.
func (r Run) JSON() *OutcomeJSON {
	if !r.Known {
		return nil
	}
	j := &OutcomeJSON{Value: r.Value, Success: r.Success}
	if r.Tokens >= 0 {
		t := r.Tokens
		j.Tokens = &t
	}
	return j
}

// RunOfJSON is the Run a report's "outcome" (nil: none) and the trace's tokens stand for.
func RunOfJSON(j *OutcomeJSON) Run {
	if j == nil {
		return Run{Tokens: -1}
	}
	r := Run{Known: true, Value: j.Value, Success: j.Success, Decided: true, Tokens: -1}
	if j.Tokens != nil {
		r.Tokens = *j.Tokens
	}
	return r
}
