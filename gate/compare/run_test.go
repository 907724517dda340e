package compare

import (
	"errors"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

func TestBaselineCheckProfile(t *testing.T) {
	b := &Baseline{Run: Run{Profile: profile.Reference}, Name: "b.json"}
	err := b.Check(profile.Default)
	var u *Unusable
	if !errors.As(err, &u) || u.Reason != `baseline b.json was written with profile "reference", this run uses "default": not compared` {
		t.Errorf("got %v", err)
	}
	if err := b.Check(profile.Reference); err != nil {
		t.Errorf("same profile: %v", err)
	}
}
