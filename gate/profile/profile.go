// Package profile names the two ways every evaluator can run: "reference", which reproduces
// the published system's numbers exactly, and "default", which fixes its known false positives.
package profile

import "fmt"

// Profile selects reference or default behaviour for an evaluator.
type Profile string

const (
	// Default is the reference with its known false positives fixed.
	Default Profile = "default"
	// Reference reproduces the published system's figures to 1e-9.
	Reference Profile = "reference"
)

// Parse turns a flag or action input into a Profile; the empty string means Default.
func Parse(s string) (Profile, error) {
	switch s {
	case "", string(Default):
		return Default, nil
	case string(Reference):
		return Reference, nil
	}
	return "", fmt.Errorf("unknown profile %q: want \"default\" or \"reference\"", s)
}
