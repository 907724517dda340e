package agreement

// Labels a validator may give, in the order the seed's scorer uses for its confusion matrix.
const (
	Valid        = "VALID"
	NotInContext = "NOT_IN_CONTEXT"
	Reject       = "REJECT"
	Abstain      = "ABSTAIN"
)

// Labels lists the four labels in confusion-matrix order.
var Labels = [4]string{Valid, NotInContext, Reject, Abstain}

// Judgement is one validator's label for one item.
type Judgement struct {
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// Pair is both validators' judgements of one item, with the evidence the arbitration reads
// (docs/design.md#the-source-systems).
type Pair struct {
	QID          string
	File         string
	Line         int
	Scholar      Judgement
	Auditor      Judgement
	Citations    []string        // answer_json.citations
	RetrievedIDs []string        // retrieved_ids
	HasRetrieved bool            // retrieved_ids was present
	Flags        map[string]bool // flags; only provenance_violation and constraints_mismatch are read
}

// Item is one pair in the report: both labels and the arbitration's FINAL and why.
type Item struct {
	QID     string `json:"qid"`
	Scholar string `json:"scholar"`
	Auditor string `json:"auditor"`
	Final   string `json:"final"`
	Why     string `json:"why"` // hard_flag, citation_out_of_scope, auditor_veto, auditor_ok or incoherent_pair
}

// Unmatched is a qid that only one of two label files holds.
type Unmatched struct {
	QID    string `json:"qid"`
	OnlyIn string `json:"only_in"` // "scholar" or "auditor"
	File   string `json:"file"`
	Line   int    `json:"line"`
}

// Summary is the agreement section of the gate report (docs/design.md#one-binary). Numbers are unrounded.
type Summary struct {
	N                int         `json:"n"`
	PercentAgreement float64     `json:"percent_agreement"`
	Kappa            float64     `json:"kappa"` // 0 when undefined; see KappaDefined
	KappaDefined     bool        `json:"kappa_defined"`
	KappaSE          float64     `json:"kappa_se"`
	KappaCI          [2]float64  `json:"kappa_ci"` // 95% interval, clamped to [−1, 1]
	KappaMax         float64     `json:"kappa_max"`
	PABAK            float64     `json:"pabak"`
	AC1              float64     `json:"ac1"`
	AC1SE            float64     `json:"ac1_se"`
	AbstainRate      float64     `json:"abstain_rate"`
	Band             string      `json:"band"` // Landis–Koch band of κ, e.g. "substantial"
	Unmatched        []Unmatched `json:"unmatched"`
	Items            Items       `json:"items"`
	Confusion        [4][4]int   `json:"confusion"`          // rows scholar, columns auditor, in Labels order
	Warnings         []string    `json:"warnings,omitempty"` // e.g. the kappa paradox
	// Files are the merged pairs files that gave items, in reading order, with how many
	// each gave: what a merge of shard reports orders the items by (docs/design.md#shards).
	Files []FileItems `json:"files,omitempty"`
	// Joined says the items were joined by qid from scholar and auditor files, and so are
	// sorted by qid across all of them; Files is then nil.
	Joined bool `json:"joined,omitempty"`
}

// FileItems is how many items a merged pairs file gave.
type FileItems struct {
	File  string `json:"file"`
	Items int    `json:"items"`
}
