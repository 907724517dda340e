package compare

import (
	"errors"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

func TestBaselineCheckProfile(t *testing.T) {
	b := &Baseline{Run: Run{Profile: profile.Reference}, Name: "b.json"}
	err := b.Check(&Run{Profile: profile.Default})
	var u *Unusable
	if !errors.As(err, &u) || u.Reason != `baseline b.json was written with profile "reference", this run uses "default": not compared` {
		t.Errorf("got %v", err)
	}
	if err := b.Check(&Run{Profile: profile.Reference}); err != nil {
		t.Errorf("same profile: %v", err)
	}
}

func TestBaselineCheckTokenBudget(t *testing.T) {
	for _, c := range []struct {
		base, head int64
		want       string
	}{
		{0, 0, ""},
		{0, 100000, ""}, // 0 records the default
		{200000, 200000, ""},
		{200000, 0, `baseline b.json was written with token-budget 200000, this run uses 100000: not compared`},
		{0, 50000, `baseline b.json was written with token-budget 100000, this run uses 50000: not compared`},
	} {
		b := &Baseline{Run: Run{Profile: profile.Default, TokenBudget: c.base}, Name: "b.json"}
		err := b.Check(&Run{Profile: profile.Default, TokenBudget: c.head})
		var u *Unusable
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%d vs %d: %v", c.base, c.head, err)
		case c.want != "" && (!errors.As(err, &u) || u.Reason != c.want):
			t.Errorf("%d vs %d: got %v, want %s", c.base, c.head, err, c.want)
		}
	}
}
