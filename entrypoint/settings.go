package entrypoint

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/gate/reliability"
)

// maxInputBytes is the setting of the most bytes one input may hold after decompression.
const maxInputBytes = "max-input-bytes"

// The settings of the comparison that are not gates.
const (
	regressionAlpha = "regression-alpha"
	// planEffect is the drop a comparison plans for (docs/design.md#planning-and-trend).
	planEffect = "plan-effect"
	passK      = "pass-k"
	// allowMissingRuns leaves the baseline's runs missing from this run out of the comparison
	// instead of counting them as its failures (docs/comparison-and-statistics.md).
	allowMissingRuns = "allow-missing-runs"
	// outcomeScorer names the score that is a run's outcome: an Inspect scorer, a LangSmith feedback
	// key, a Langfuse score name (docs/design.md#outcomes, docs/trace-formats.md#outcomes).
	outcomeScorer = "outcome-scorer"
	// outcomeField names the member holding a run's own success in a format agentgate does
	// not know (docs/design.md#harness-folders).
	outcomeField = "outcome-field"
	// defaultBaselineArtifact is the artifact `baseline: auto` looks for, and the one the
	// README's push-to-main job uploads.
	defaultBaselineArtifact = "agentgate-report"
)

// setting is one value and where it came from, so errors can say which flag, input or config
// line to fix.
type setting struct {
	value  string
	source string // "--pa-min", "input pa-min", "agentgate.yml:3:9"
	// items are a list's values as a config file's YAML list gave them, each whole (a comma
	// in one is part of the name); nil when value is to be split (input.SplitList).
	items []string
}

// settings merges the sources: a flag wins over an action input, which wins over the config
// file, which wins over the built-in defaults.
type settings map[string]setting

func (s settings) layer(over map[string]setting) {
	for k, v := range over {
		s[k] = v
	}
}

func (s settings) str(key string) string { return s[key].value }

func (s settings) list(key string) []string {
	if v := s[key]; v.items != nil {
		return slices.Clone(v.items)
	}
	return input.SplitList(s[key].value)
}

func (s settings) float(key string, def float64) (float64, error) {
	v, ok := s[key]
	if !ok || strings.TrimSpace(v.value) == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.value), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, &gate.UsageError{Msg: fmt.Sprintf("%s: %s is not a number", settingName(key, v.source), input.Quote(v.value))}
	}
	return f, nil
}

func (s settings) int(key string, def int) (int, error) {
	v, ok := s[key]
	if !ok || strings.TrimSpace(v.value) == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v.value))
	if err != nil {
		return 0, &gate.UsageError{Msg: fmt.Sprintf("%s: %s is not a whole number", settingName(key, v.source), input.Quote(v.value))}
	}
	return n, nil
}

func (s settings) bool(key string, def bool) (bool, error) {
	v, ok := s[key]
	if !ok || strings.TrimSpace(v.value) == "" {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v.value)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, &gate.UsageError{Msg: fmt.Sprintf("%s: %s is not true or false", settingName(key, v.source), input.Quote(v.value))}
}

// gateConfig is everything `agentgate gate` needs, parsed and checked.
type gateConfig struct {
	inputs gate.Inputs
	// merge are the patterns of the shards' JSON reports to merge (docs/design.md#shards); empty for a run
	// over the inputs alone.
	merge     []string
	options   gate.Options
	jsonPath  string
	mdPath    string
	junitPath string
	sarifPath string // SARIF 2.1.0 for code scanning (docs/design.md#findings-elsewhere)
	otelPath  string // OTLP/JSON evaluation events (docs/design.md#findings-elsewhere)
	// baseline is a JSON report's path, "auto" (the base branch's artifact) or empty.
	baseline         string
	baselineSource   string // the flag, input or config line baseline came from
	baselineArtifact string
	comment          bool
	commentMode      string
	checkName        string // the check run's name (docs/design.md#defaults); "" posts none
	token            string
	prNumber         string
	// noTraces is what a run whose inputs are all absent does: noTracesError or noTracesNeutral.
	noTraces string
	// maxInputBytes is the most bytes one input may expand to; 0: input's default
	maxInputBytes int64
	// answer holds, by name, the value of each setting that changes the answer
	// (settingDef.noEffect) and differs from its default, as reproduceCommand prints it.
	answer map[string][]string
}

// gateConfig reads and checks the settings of `agentgate gate`. They are read in a fixed
// order, thresholds first, so that of two bad settings the same one is reported every time.
func (s settings) gateConfig() (*gateConfig, error) {
	c := &gateConfig{
		merge:    s.list("merge"),
		jsonPath: s.str("json"), mdPath: s.str("markdown"), junitPath: s.str("junit"),
		sarifPath: s.str("sarif"), otelPath: s.str("otel"),
		token: s.str("github-token"), prNumber: strings.TrimSpace(s.str("pr-number")),
		checkName: strings.TrimSpace(s.str("check-name")),
	}
	for name, patterns := range inputLists(&c.inputs) {
		*patterns = s.list(name)
	}
	var err error
	if c.options.Thresholds, err = s.thresholds(); err != nil {
		return nil, err
	}
	c.options.OutcomeScorer = strings.TrimSpace(s.str(outcomeScorer))
	c.options.OutcomeField = strings.TrimSpace(s.str(outcomeField))
	if c.options.Thresholds.FailOnSkipped, err = gate.ParseSkipPolicy(s.str(gate.FailOnSkipped)); err != nil {
		return nil, &gate.UsageError{Msg: fmt.Sprintf("%s: %v", s[gate.FailOnSkipped].source, err)}
	}
	c.options.Thresholds.Given = s.given()
	if c.options.Compare, err = s.compareOptions(); err != nil {
		return nil, err
	}
	c.baseline = strings.TrimSpace(s.str("baseline"))
	c.baselineSource = s["baseline"].source
	c.baselineArtifact = cmp.Or(strings.TrimSpace(s.str("baseline-artifact")), defaultBaselineArtifact)
	if err := s.evaluation(&c.options); err != nil {
		return nil, err
	}
	if err := s.output(c); err != nil {
		return nil, err
	}
	// The ranges are gate's to say (gate.Run checks them again); checked here, an error
	// names where the value was given, as a value that is not a number does.
	if err := c.options.Thresholds.Validate(); err != nil {
		return nil, s.located(err)
	}
	if err := c.options.Compare.Validate(); err != nil {
		return nil, s.located(err)
	}
	if c.answer, err = s.answer(); err != nil {
		return nil, err
	}
	return c, nil
}

// thresholds reads the gates' thresholds and the comparison's gates, each its default when
// not given (docs/reference.md, the settings table); gateConfig reads the skip policy.
func (s settings) thresholds() (gate.Thresholds, error) {
	def := gate.DefaultThresholds()
	var t gate.Thresholds
	err := s.floats(floatSetting{gate.CoherenceMin, &t.CoherenceMin, def.CoherenceMin}, floatSetting{gate.PAMin, &t.PAMin, def.PAMin},
		floatSetting{gate.KappaMin, &t.KappaMin, def.KappaMin}, floatSetting{gate.AbstainMax, &t.AbstainMax, def.AbstainMax})
	if err != nil {
		return t, err
	}
	if t.MaxFailedTraces, err = s.int(gate.MaxFailedTraces, def.MaxFailedTraces); err != nil {
		return t, err
	}
	err = s.floats(floatSetting{gate.SuccessThreshold, &t.SuccessThreshold, def.SuccessThreshold},
		floatSetting{gate.SuccessRateMin, &t.SuccessRateMin, def.SuccessRateMin})
	if err != nil {
		return t, err
	}
	co := &t.Compare
	*co = def.Compare
	if co.FailOnRegression, err = s.bool(compare.FailOnRegression, def.Compare.FailOnRegression); err != nil {
		return t, err
	}
	if co.MaxNewFailures, err = s.int(compare.MaxNewFailures, def.Compare.MaxNewFailures); err != nil {
		return t, err
	}
	if v, ok := s[compare.MaxNewFailures]; ok && strings.TrimSpace(v.value) != "" && co.MaxNewFailures < 0 {
		return t, &gate.UsageError{Msg: fmt.Sprintf("%s: %s must be 0 or more, got %d", v.source, compare.MaxNewFailures, co.MaxNewFailures)}
	}
	if co.PassKMin, err = s.float(compare.PassKMin, def.Compare.PassKMin); err != nil {
		return t, err
	}
	if co.PassK, err = s.int(passK, def.Compare.PassK); err != nil {
		return t, err
	}
	return t, nil
}

// floatSetting is a setting that holds a number, read into to; def where it is not given.
type floatSetting struct {
	name string
	to   *float64
	def  float64
}

// floats reads the settings fs in their order, as float does, and stops at the first error.
func (s settings) floats(fs ...floatSetting) error {
	for _, f := range fs {
		v, err := s.float(f.name, f.def)
		if err != nil {
			return err
		}
		*f.to = v
	}
	return nil
}

// compareOptions reads how a comparison with the baseline tests and matches the runs.
func (s settings) compareOptions() (compare.Options, error) {
	o := compare.DefaultOptions()
	err := s.floats(floatSetting{regressionAlpha, &o.Alpha, compare.DefaultAlpha}, floatSetting{planEffect, &o.PlanEffect, compare.DefaultPlanEffect})
	if err != nil {
		return o, err
	}
	if o.AllowMissingRuns, err = s.bool(allowMissingRuns, false); err != nil {
		return o, err
	}
	if err := compare.ValidEffect(o.PlanEffect); err != nil {
		return o, &gate.UsageError{Msg: fmt.Sprintf("%s: %v", s[planEffect].source, err)}
	}
	return o, nil
}

// evaluation reads how the runs are evaluated and what fails the gate into o.
func (s settings) evaluation(o *gate.Options) error {
	var err error
	if o.AllowUnmatched, err = s.bool("allow-unmatched", false); err != nil {
		return err
	}
	if o.Profile, err = profile.Parse(strings.TrimSpace(s.str("profile"))); err != nil {
		return &gate.UsageError{Msg: fmt.Sprintf("%s: %v", s["profile"].source, err)}
	}
	if o.TokenBudget, err = s.tokenBudget(o.Profile); err != nil {
		return err
	}
	if o.FailOn, err = gate.ParseFailOn(strings.TrimSpace(s.str("fail-on"))); err != nil {
		return &gate.UsageError{Msg: fmt.Sprintf("%s: %v", s["fail-on"].source, err)}
	}
	return nil
}

// output reads what the run posts and how much it reads into c: the PR comment, the check
// run's name, what a run without traces does and the largest input.
func (s settings) output(c *gateConfig) error {
	var err error
	if c.comment, err = s.bool("comment", true); err != nil {
		return err
	}
	if c.maxInputBytes, err = s.size(maxInputBytes); err != nil {
		return err
	}
	switch c.commentMode = strings.TrimSpace(s.str("comment-mode")); c.commentMode {
	case "":
		c.commentMode = "update"
	case "update", "recreate":
	default:
		return &gate.UsageError{Msg: fmt.Sprintf("%s: unknown comment-mode %q: want \"update\" or \"recreate\"", s["comment-mode"].source, c.commentMode)}
	}
	switch c.noTraces = strings.TrimSpace(s.str("no-traces")); c.noTraces {
	case "":
		c.noTraces = noTracesError
	case noTracesError, noTracesNeutral:
	default:
		return &gate.UsageError{Msg: fmt.Sprintf("%s: unknown no-traces %s: want %q or %q", s["no-traces"].source, input.Quote(c.noTraces), noTracesError, noTracesNeutral)}
	}
	if strings.IndexFunc(c.checkName, unicode.IsControl) >= 0 || !utf8.ValidString(c.checkName) {
		return &gate.UsageError{Msg: fmt.Sprintf("%s: %s: a check run's name is one line of text", s["check-name"].source, input.Quote(c.checkName))}
	}
	return nil
}

// located is a range error of gate's (a *gate.SettingError: "pa-min must be between 0 and 1,
// got 1.5") with the setting it names said as the user gave it: "--pa-min must …", "input
// pa-min must …", "agentgate.yml:3:9: pa-min must …". Any other error is a usage error as it
// is.
func (s settings) located(err error) error {
	var se *gate.SettingError
	if errors.As(err, &se) {
		return &gate.UsageError{Msg: settingName(se.Name, s[se.Name].source) + " " + se.Msg}
	}
	return &gate.UsageError{Msg: err.Error()}
}

// skippableDefaults are the gates on by default that can be skipped (kappa-min with κ
// undefined, fail-on-regression without a usable baseline): fail-on-skipped's explicit breaches
// them only when the user set them, so being given changes their answer.
var skippableDefaults = []string{gate.KappaMin, compare.FailOnRegression}

// given names the settings given a value (by a flag, an input or the config file), in the
// table's order: the gates among them are the ones fail-on-skipped's default holds to what
// they measured.
func (s settings) given() []string {
	var out []string
	for _, d := range settingTable {
		if strings.TrimSpace(s[d.name].value) != "" || s[d.name].items != nil {
			out = append(out, d.name)
		}
	}
	return out
}

// inputLists are the settings that name the input files, each with its place in in.
func inputLists(in *gate.Inputs) map[string]*[]string {
	return map[string]*[]string{
		"traces": &in.Traces, "tasks": &in.Tasks, "pairs": &in.Pairs,
		"scholar": &in.Scholar, "auditor": &in.Auditor, "outcomes": &in.Outcomes,
	}
}

// answer is gateConfig.answer: the value of each setting that changes the answer and is
// given with another value than its default, read as gateConfig reads it.
func (s settings) answer() (map[string][]string, error) {
	answer := map[string][]string{}
	policy, _ := gate.ParseSkipPolicy(s.str(gate.FailOnSkipped)) // gateConfig checked it
	for _, d := range settingTable {
		if d.noEffect != "" {
			continue
		}
		v, err := s.canonical(d)
		if err != nil {
			return nil, err
		}
		def, err := settings{d.name: {value: d.def, source: "the default of " + d.name}}.canonical(d)
		if err != nil {
			return nil, err
		}
		// A gate on by default that the user set is held to what it measured under
		// fail-on-skipped's explicit, so given at its default it still changes the answer.
		atDefault := slices.Equal(v, def) && !(policy == gate.SkipExplicit && slices.Contains(skippableDefaults, d.name))
		if len(v) == 0 || atDefault || d.actionsOnly != "" && slices.Equal(v, []string{d.actionsOnly}) {
			continue
		}
		answer[d.name] = v
	}
	return answer, nil
}

// canonical is the setting's value in one spelling, whichever the user chose ("0.50" is
// 0.5, "yes" is true, "2GiB" is 2147483648): a list's patterns, or one value; nil when the
// setting is not given.
func (s settings) canonical(d settingDef) ([]string, error) {
	if d.kind == kindList {
		return s.list(d.name), nil
	}
	text := strings.TrimSpace(s[d.name].value)
	if text == "" {
		return nil, nil
	}
	var err error
	switch {
	case d.name == gate.FailOnSkipped:
		var p gate.SkipPolicy
		p, err = gate.ParseSkipPolicy(text)
		text = string(p)
	case d.kind == kindNumber:
		var f float64
		f, err = s.float(d.name, 0)
		text = fmt.Sprint(f)
	case d.kind == kindWhole:
		var n int
		n, err = s.int(d.name, 0)
		text = strconv.Itoa(n)
	case d.kind == kindBool:
		var b bool
		b, err = s.bool(d.name, false)
		text = strconv.FormatBool(b)
	case d.kind == kindSize:
		var n int64
		n, err = s.size(d.name)
		text = strconv.FormatInt(n, 10)
	}
	return []string{text}, err
}

// size reads a number of bytes, written whole or with a binary unit (KiB, MiB, GiB, also K,
// M, G): 0 when the setting is not given.
func (s settings) size(key string) (int64, error) {
	v, ok := s[key]
	text := strings.TrimSpace(v.value)
	if !ok || text == "" {
		return 0, nil
	}
	digits := strings.TrimRightFunc(text, func(r rune) bool { return r < '0' || r > '9' })
	shift := -1
	switch strings.ToLower(strings.TrimSpace(text[len(digits):])) {
	case "", "b":
		shift = 0
	case "k", "kib":
		shift = 10
	case "m", "mib":
		shift = 20
	case "g", "gib":
		shift = 30
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || shift < 0 || n <= 0 || n > math.MaxInt64>>shift {
		return 0, &gate.UsageError{Msg: fmt.Sprintf("%s: %q is not a size: want a positive number of bytes, as 1073741824 or 1GiB", v.source, v.value)}
	}
	return n << shift, nil
}

// tokenBudget reads token-budget: a whole number of tokens, 1 or more, and under the reference
// profile RS-1's own (an error names where each of the two settings was given).
func (s settings) tokenBudget(p profile.Profile) (int64, error) {
	n, err := s.int(gate.TokenBudget, reliability.DefaultTokenBudget)
	if err != nil {
		return 0, err
	}
	if err := gate.CheckTokenBudget(int64(n), p); err != nil {
		v := s[gate.TokenBudget]
		if n < 1 {
			return 0, s.located(err)
		}
		return 0, &gate.UsageError{Msg: fmt.Sprintf("%s is %d, but %s is %q, which reproduces RS-1 and its budget of %d tokens: use profile %q, or leave %s unset",
			settingName(gate.TokenBudget, v.source), n, settingName("profile", s["profile"].source), p, reliability.DefaultTokenBudget, profile.Default, gate.TokenBudget)}
	}
	return int64(n), nil
}
