package coherence

// Task is one intent / understanding / action triple to score (docs/design.md#input-files).
type Task struct {
	ID            string
	File          string
	Line          int
	Intent        string
	Understanding string
	Action        string
	// Weights of the three KL terms; nil means the default (α = 1, β = 0.5, γ = 0.5).
	Alpha, Beta, Gamma *float64
	// ReferenceAction is carried through from an RCS harness results file (or a task record's
	// "reference_action"); it is not scored.
	ReferenceAction string
	// Model is the "model" of the RCS harness results file the task came from, empty for a
	// plain task record; `agentgate rcs` keeps it so that re-scoring a harness file reports
	// the same model.
	Model string
}

// TaskResult is the score of one task: what the JSON report keeps per task.
type TaskResult struct {
	ID     string  `json:"id"`
	File   string  `json:"file"`
	Line   int     `json:"line"`
	RCS    float64 `json:"rcs"`    // 1 − min(1, energy), unrounded; 0 when Note says incoherent
	Energy float64 `json:"energy"` // α·KL(I‖U) + β·KL(U‖A) + γ·KL(A‖I), at most math.MaxFloat64
	// Note explains a default-profile judgement the number alone does not show, e.g. "the
	// action is empty: scored as incoherent". Empty when there is nothing to say.
	Note string `json:"note,omitempty"`
}

// Summary is the coherence section of the gate report. Build it with Summarize or Add, which
// keep the running sum that makes Mean exactly sum/total, as the harness computes it.
type Summary struct {
	Total int          `json:"total"`
	Mean  float64      `json:"mean"` // mean RCS over tasks, unrounded
	Tasks []TaskResult `json:"tasks"`

	sum float64 // RCS summed in task order
}
