package input

import (
	"slices"
	"testing"
)

func TestIDs(t *testing.T) {
	for _, c := range []struct {
		kind        string
		here, first Place
		want        string
	}{
		{"trace", Place{File: "b.jsonl", Line: 2}, Place{File: "a.jsonl", Line: 1},
			`b.jsonl:2: duplicate trace id "x\n": already used at a.jsonl:1; every trace needs its own id`},
		{"task", Place{File: "t.json", Line: 3, Col: 7}, Place{File: "t.json", Line: 1, Col: 2},
			`t.json:3:7: duplicate task id "x\n": already used at t.json:1:2; every task needs its own id`},
	} {
		ids := NewIDs(c.kind)
		for n, id := range []string{"x\n", "y"} {
			if first, dup := ids.Add(id, n); dup {
				t.Fatalf("%s: id %q reported as a duplicate of record %d", c.kind, id, first)
			}
		}
		first, dup := ids.Add("x\n", 2)
		if !dup || first != 0 {
			t.Fatalf("%s: Add of a repeated id = %d, %v; want 0, true", c.kind, first, dup)
		}
		if first, dup := ids.Add("y", 3); !dup || first != 1 {
			t.Errorf("%s: Add of y again = %d, %v; want 1, true", c.kind, first, dup)
		}
		err := ids.Duplicate("x\n", c.here, c.first)
		if err.Error() != c.want || err.Col != c.here.Col {
			t.Errorf("%s: error\n%v (col %d)\nwant\n%s", c.kind, err, err.Col, c.want)
		}
	}
}

// TestIDsReserve checks that Reserve changes nothing but the room: it makes room only in an
// empty set, and duplicates are found as before.
func TestIDsReserve(t *testing.T) {
	s := NewIDs("trace")
	s.Reserve(1000)
	if _, dup := s.Add("a", 0); dup {
		t.Fatal("a: a duplicate in an empty set")
	}
	s.Reserve(1000) // not empty: must keep "a"
	if first, dup := s.Add("a", 5); !dup || first != 0 {
		t.Fatalf("a again: first %d, dup %v; want 0, true", first, dup)
	}
	s.Reserve(-1)
	if _, dup := s.Add("b", 1); dup {
		t.Fatal("b: a duplicate")
	}

	// a wild guess makes room for maxReserve ids at most: about 4 MB, not 30 GB
	_, grown := cost(func() { NewIDs("trace").Reserve(1 << 30) })
	if grown > 8<<20 {
		t.Errorf("Reserve(1<<30) allocated %d bytes, want at most 8 MiB", grown)
	}
}

// TestIDsCheck: Check is Full, Add and Duplicate in that order; prior is asked only about a
// repeated id, with the number of the record that had it first, and an id two records may
// share is no error.
func TestIDsCheck(t *testing.T) {
	places := []Place{{File: "a.jsonl", Line: 1}, {File: "a.jsonl", Line: 2}}
	ids := NewIDs("trace")
	var asked []int
	prior := func(shared bool) func(int) (Place, bool) {
		return func(first int) (Place, bool) { asked = append(asked, first); return places[first], shared }
	}
	for n, id := range []string{"x", "y"} {
		if err := ids.Check(id, n, places[n], prior(false)); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if err := ids.Check("y", 2, Place{File: "b.jsonl", Line: 1}, prior(true)); err != nil {
		t.Errorf("a shared id: %v", err)
	}
	err := ids.Check("y", 3, Place{File: "b.jsonl", Line: 2, Col: 3}, prior(false))
	if want := `b.jsonl:2:3: duplicate trace id "y": already used at a.jsonl:2; every trace needs its own id`; err == nil || err.Error() != want {
		t.Errorf("a repeated id: %v\nwant %s", err, want)
	}
	if want := []int{1, 1}; !slices.Equal(asked, want) {
		t.Errorf("prior asked about records %v, want %v", asked, want)
	}
	defer func(n int) { MaxIDs = n }(MaxIDs)
	MaxIDs = 2
	err = ids.Check("z", 4, Place{File: "b.jsonl", Line: 3}, prior(false))
	if want := "b.jsonl:3: more than 2 traces in one run, the most agentgate reads (each is kept for the report)"; err == nil || err.Error() != want {
		t.Errorf("a full set: %v\nwant %s", err, want)
	}
}
