package coherence

// Task is one intent / understanding / action triple to score (SPEC §2.2).
type Task struct {
	ID            string
	File          string
	Line          int
	Intent        string
	Understanding string
	Action        string
	// Weights of the three KL terms; nil means the default (α = 1, β = 0.5, γ = 0.5).
	Alpha, Beta, Gamma *float64
	// ReferenceAction is carried through from an RCS harness results file; it is not scored.
	ReferenceAction string
}

// TaskResult is the score of one task: what the JSON report keeps per task.
type TaskResult struct {
	ID     string  `json:"id"`
	File   string  `json:"file"`
	Line   int     `json:"line"`
	RCS    float64 `json:"rcs"`    // 1 − min(1, energy), unrounded
	Energy float64 `json:"energy"` // α·KL(I‖U) + β·KL(U‖A) + γ·KL(A‖I)
	// Note explains a default-profile judgement the number alone does not show, e.g. "the
	// action is empty: scored as incoherent". Empty when there is nothing to say.
	Note string `json:"note,omitempty"`
}

// Summary is the coherence section of the gate report.
type Summary struct {
	Total int          `json:"total"`
	Mean  float64      `json:"mean"` // mean RCS over tasks, unrounded
	Tasks []TaskResult `json:"tasks"`
}
