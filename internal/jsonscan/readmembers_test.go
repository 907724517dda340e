package jsonscan

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// skipEach walks data with ReadMembers, skipping every value, and with EachMember, and returns
// what each saw: the members as key=value, the end and the error.
func skipEach(data []byte) (read, each string) {
	var r, e []string
	rend, rerr := ReadMembers(data, 0, func(key []byte, v int) (int, error) {
		end, err := Skip(data, v)
		if err == nil {
			r = append(r, string(key)+"="+string(data[v:end]))
		}
		return end, err
	})
	eend, eerr := EachMember(data, 0, func(key []byte, start, end int) error {
		e = append(e, string(key)+"="+string(data[start:end]))
		return nil
	})
	show := func(ms []string, end int, err error) string {
		return fmt.Sprintf("%s | end %d | %s", strings.Join(ms, " "), end, errString(err))
	}
	return show(r, rend, rerr), show(e, eend, eerr)
}

func errString(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%s at %d", e.Msg, e.Off)
	}
	if err != nil {
		return err.Error()
	}
	return "ok"
}

// TestReadMembers: fn reads each value itself, and ReadMembers says what EachMember says, ends
// where it ends and fails where it fails, on objects good and bad.
func TestReadMembers(t *testing.T) {
	data := []byte(` {"a": [1, "x"], "b\u00e9" : {"c": null} , "d":true} `)
	var got []string
	end, err := ReadMembers(data, 0, func(key []byte, v int) (int, error) {
		end, err := Skip(data, v)
		got = append(got, Unquote(key, Replace)+"="+string(data[v:end]))
		return end, err
	})
	want := `a=[1, "x"] bé={"c": null} d=true`
	if err != nil || end != len(data)-1 || strings.Join(got, " ") != want {
		t.Errorf("ReadMembers: %q, %d, %v; want %q, %d", strings.Join(got, " "), end, err, want, len(data)-1)
	}
	for _, in := range []string{`{}`, ` { } `, `{"a":1}`, `{"a":1,}`, `{"a":1`, `{"a" 1}`, `{"a":}`, `{"a":[1 2]}`, `{1:2}`,
		`{"a":1 "b":2}`, `{"a\q":1}`, `[1]`, `"x"`, ``, `{`, `{"a":1}}`, `{"a": tru}`, `{"a": {"b": [}}`} {
		if r, e := skipEach([]byte(in)); r != e {
			t.Errorf("%q:\nReadMembers %s\nEachMember  %s", in, r, e)
		}
	}
	// fn's error stops the walk, at the offset fn returns.
	stop := errors.New("stop")
	data = []byte(`{"a": 1, "b": 2, "c": 3}`)
	var keys []string
	end, err = ReadMembers(data, 0, func(key []byte, v int) (int, error) {
		keys = append(keys, string(key))
		if KeyIs(key, "b") {
			return v, stop
		}
		return Skip(data, v)
	})
	if err != stop || end != 14 || strings.Join(keys, ",") != `"a","b"` {
		t.Errorf("stop: %d, %v, keys %v; want 14, stop, \"a\",\"b\"", end, err, keys)
	}
}

// FuzzReadMembers holds ReadMembers and ReadElements, with fn skipping each value, to
// EachMember and EachElement on any input.
func FuzzReadMembers(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": null}], "c": "d"}`, `{"a":1,}`, `{"a" 1}`, `{`, `[]`, `{"\u00e9": "\ud800"}`, `[1, [2], {"a": 3}]`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, e := skipEach(data); r != e {
			t.Fatalf("%q:\nReadMembers %s\nEachMember  %s", data, r, e)
		}
		if r, e := skipElements(data); r != e {
			t.Fatalf("%q:\nReadElements %s\nEachElement  %s", data, r, e)
		}
	})
}

// skipElements is skipEach for arrays: ReadElements against EachElement.
func skipElements(data []byte) (read, each string) {
	var r, e []string
	rend, rerr := ReadElements(data, 0, func(j, at int) (int, error) {
		end, err := Skip(data, at)
		if err == nil {
			r = append(r, fmt.Sprint(j)+"="+string(data[at:end]))
		}
		return end, err
	})
	eend, eerr := EachElement(data, 0, func(start, end int) error {
		e = append(e, fmt.Sprint(len(e))+"="+string(data[start:end]))
		return nil
	})
	show := func(es []string, end int, err error) string {
		return fmt.Sprintf("%s | end %d | %s", strings.Join(es, " "), end, errString(err))
	}
	return show(r, rend, rerr), show(e, eend, eerr)
}

// TestReadElements: fn gets each element's index and reads it itself, and ReadElements says
// what EachElement says, ends where it ends and fails where it fails; fn's error stops it.
func TestReadElements(t *testing.T) {
	for _, in := range []string{`[]`, ` [ ] `, `[1]`, `[1, [2, 3], {"a": "b"}, null] `, `[1,]`, `[1`, `[1 2]`, `[,]`,
		`{"a":1}`, `"x"`, ``, `[`, `[1]]`, `[tru]`, `[[}]`} {
		if r, e := skipElements([]byte(in)); r != e {
			t.Errorf("%q:\nReadElements %s\nEachElement  %s", in, r, e)
		}
	}
	stop := errors.New("stop")
	data := []byte(`[10, 20, 30]`)
	var seen []int
	end, err := ReadElements(data, 0, func(j, at int) (int, error) {
		seen = append(seen, j)
		if j == 1 {
			return at, stop
		}
		return Skip(data, at)
	})
	if err != stop || end != 5 || fmt.Sprint(seen) != "[0 1]" {
		t.Errorf("stop: %d, %v, seen %v; want 5, stop, [0 1]", end, err, seen)
	}
}
