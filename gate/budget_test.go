package gate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/profile"
)

// Run refuses a token budget below 1, and any but RS-1's under the reference profile; the
// report records a budget only when it is not RS-1's.
func TestRunTokenBudget(t *testing.T) {
	in := gate.Inputs{Traces: []string{"../fixtures/pass/traces.jsonl"}}
	opts := func(p profile.Profile, budget int64) gate.Options {
		return gate.Options{Profile: p, TokenBudget: budget, Thresholds: gate.DefaultThresholds()}
	}
	for _, c := range []struct {
		p      profile.Profile
		budget int64
		want   string
	}{
		{profile.Default, -1, "token-budget must be 1 or more, got -1"},
		{profile.Reference, 200000, `token-budget 200000 cannot be used with profile "reference", which reproduces RS-1 and its budget of 100000 tokens: use profile "default", or leave token-budget unset`},
		{profile.Reference, 1, `token-budget 1 cannot be used with profile "reference", which reproduces RS-1 and its budget of 100000 tokens: use profile "default", or leave token-budget unset`},
	} {
		_, err := gate.Run(context.Background(), in, opts(c.p, c.budget))
		var ue *gate.UsageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("%s %d: %v, want a usage error %q", c.p, c.budget, err, c.want)
		}
	}
	for _, c := range []struct {
		p              profile.Profile
		budget, record int64
	}{
		{profile.Default, 0, 0}, {profile.Default, 100000, 0}, {profile.Reference, 0, 0},
		{profile.Reference, 100000, 0}, {profile.Default, 7, 7},
	} {
		r, err := gate.Run(context.Background(), in, opts(c.p, c.budget))
		if err != nil {
			t.Errorf("%s %d: %v", c.p, c.budget, err)
		} else if r.TokenBudget != c.record {
			t.Errorf("%s %d: token budget %d recorded, want %d", c.p, c.budget, r.TokenBudget, c.record)
		}
	}
}
