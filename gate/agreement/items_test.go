package agreement

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"
)

// An item takes 16 bytes and no pointer: the point of Items.
func TestItemRecSize(t *testing.T) {
	if n := unsafe.Sizeof(itemRec{}); n != 16 {
		t.Errorf("itemRec is %d bytes, want 16", n)
	}
}

var itemCases = []Item{
	{QID: "q-1", Scholar: Valid, Auditor: Valid, Final: Valid, Why: WhyAuditorOK},
	{QID: "", Scholar: Abstain, Auditor: NotInContext, Final: Reject, Why: WhyAuditorVeto},
	{QID: "7", Scholar: "valid", Auditor: Valid, Final: Reject, Why: WhyIncoherentPair},                                             // a label outside the four
	{QID: "q\x00\xff", Scholar: "", Auditor: "", Final: Reject, Why: WhyHardFlag},                                                   // empty labels
	{QID: "é", Scholar: "x", Auditor: "y", Final: "z", Why: "neither"},                                                              // nothing known
	{QID: string(make([]byte, 300)), Scholar: string(make([]byte, 200)), Auditor: Reject, Final: Valid, Why: WhyCitationOutOfScope}, // two-byte lengths
}

// Every item comes back as it went in, by At, All, List and JSON.
func TestItemsRoundTrip(t *testing.T) {
	s := ItemsOf(itemCases)
	if s.Len() != len(itemCases) {
		t.Fatalf("Len = %d", s.Len())
	}
	for i, want := range itemCases {
		if got := s.At(i); got != want {
			t.Errorf("At(%d) = %q, want %q", i, got, want)
		}
	}
	n := 0
	for i, it := range s.All() {
		if i != n || it != itemCases[i] {
			t.Errorf("All: %d %q", i, it)
		}
		n++
	}
	if n != len(itemCases) {
		t.Errorf("All gave %d items", n)
	}
	if !reflect.DeepEqual(s.List(), itemCases) {
		t.Errorf("List = %q", s.List())
	}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(itemCases)
	if string(got) != string(want) {
		t.Errorf("JSON\n%s\nwant\n%s", got, want)
	}
	// Reading the JSON back gives what []Item reads (invalid UTF-8 became U+FFFD in both).
	var back Items
	var backList []Item
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &backList); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.List(), backList) || !reflect.DeepEqual(back, ItemsOf(backList)) {
		t.Errorf("read back %q, []Item read %q", back.List(), backList)
	}
}

// Items built in pieces equal Items built at once, and empty Items are equal however made,
// so that summaries compare with reflect.DeepEqual.
func TestItemsCanonical(t *testing.T) {
	var b itemsBuilder
	for i := range itemCases {
		var piece itemsBuilder
		it := itemCases[i]
		addItem(&piece, []byte(it.QID), codesOf(it.Scholar, it.Auditor, it.Final, it.Why),
			[4][]byte{[]byte(it.Scholar), []byte(it.Auditor), []byte(it.Final), []byte(it.Why)})
		b.appendBuilder(&piece)
	}
	if !reflect.DeepEqual(b.items(), ItemsOf(itemCases)) {
		t.Error("items built in pieces differ")
	}
	empty := []Items{{}, ItemsOf(nil), ItemsOf([]Item{}), (&itemsBuilder{recs: make([]itemRec, 0, 8)}).items()}
	for i, e := range empty {
		if !reflect.DeepEqual(e, Items{}) {
			t.Errorf("empty %d: %#v", i, e)
		}
		if b, _ := json.Marshal(e); string(b) != "[]" {
			t.Errorf("empty %d as JSON: %s", i, b)
		}
	}
}

func TestCountDisagreements(t *testing.T) {
	// 1 (VALID/NOT_IN_CONTEXT), 2 (valid/VALID), 4 (x/y), 5 (200 NULs/REJECT): 4 disagree;
	// 0 and 3 ("" and "") agree.
	if n := CountDisagreements(ItemsOf(itemCases)); n != 4 {
		t.Errorf("CountDisagreements = %d, want 4", n)
	}
	if d := Disagreements(ItemsOf(itemCases)); len(d) != 4 || d[0].QID != "" || d[1].QID != "7" || d[2].QID != "é" {
		t.Errorf("Disagreements = %q", d)
	}
}

// FuzzItems holds Items to the []Item it was made from.
func FuzzItems(f *testing.F) {
	f.Add("q", Valid, Reject, Reject, WhyAuditorVeto, "r", "", "", "", "")
	f.Add("", "", "", "", "", "\x80", "valid", "VALID ", "REJECTED", "hard_flag\x00")
	f.Fuzz(func(t *testing.T, q1, s1, a1, f1, w1, q2, s2, a2, f2, w2 string) {
		list := []Item{{q1, s1, a1, f1, w1}, {q2, s2, a2, f2, w2}, {q1, s2, a1, f2, w1}}
		s := ItemsOf(list)
		if !reflect.DeepEqual(s.List(), list) {
			t.Fatalf("List = %q, want %q", s.List(), list)
		}
		want := 0
		for _, it := range list {
			if it.Scholar != it.Auditor {
				want++
			}
		}
		if n := CountDisagreements(s); n != want {
			t.Fatalf("CountDisagreements = %d, want %d", n, want)
		}
	})
}
