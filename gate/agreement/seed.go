package agreement

import (
	"fmt"
	"math"

	"github.com/agentgate/agentgate/gate/pystr"
)

// PyFloat is a float that encodes to JSON as Python's json.dumps writes it (repr): always
// with a decimal point or an exponent ("1.0", "0.0", "1e-05", "1e+16"), so that the seed
// report's bytes match the seed's. NaN and infinities cannot be encoded.
type PyFloat float64

// MarshalJSON writes f as Python's repr(float) does.
func (f PyFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("agreement: cannot encode %v as JSON", x)
	}
	return pystr.AppendFloat(nil, x), nil
}

// Round4 is Python's round(x, 4), as the seed rounds its figures.
func Round4(x float64) float64 { return pystr.Round4(x) }

// SeedGates are the three thresholds as the seed's report echoes them.
type SeedGates struct {
	PA      PyFloat `json:"pa"`
	Kappa   PyFloat `json:"kappa"`
	Abstain PyFloat `json:"abstain"`
}

// SeedReport is the JSON the seed's scorer prints, field for field (docs/design.md#the-source-systems): the three
// measures rounded to 4 decimals as Python's round() does, the number of disagreements, the
// gates and pass. Encoded with two-space indentation it is byte for byte what the seed prints.
type SeedReport struct {
	N                int       `json:"n"`
	PercentAgreement PyFloat   `json:"percent_agreement"`
	Kappa            PyFloat   `json:"kappa"`
	AbstainRate      PyFloat   `json:"abstain_rate"`
	Disagreements    int       `json:"disagreements"`
	Gates            SeedGates `json:"gates"`
	Pass             bool      `json:"pass"`
}

// NewSeedReport builds the seed's report from a summary and the three gates. pass compares the
// unrounded values, as the seed does: PA ≥ pa, κ ≥ kappa and abstain rate ≤ abstain. When κ is
// undefined (default profile only) the κ gate is skipped, as the gate command skips it.
func NewSeedReport(s Summary, pa, kappa, abstain float64) SeedReport {
	pass := s.PercentAgreement >= pa && s.AbstainRate <= abstain
	if s.KappaDefined {
		pass = pass && s.Kappa >= kappa
	}
	return SeedReport{
		N:                s.N,
		PercentAgreement: PyFloat(Round4(s.PercentAgreement)),
		Kappa:            PyFloat(Round4(s.Kappa)),
		AbstainRate:      PyFloat(Round4(s.AbstainRate)),
		Disagreements:    CountDisagreements(s.Items),
		Gates:            SeedGates{PA: PyFloat(pa), Kappa: PyFloat(kappa), Abstain: PyFloat(abstain)},
		Pass:             pass,
	}
}
