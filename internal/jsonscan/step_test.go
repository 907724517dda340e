package jsonscan

import "testing"

func TestNext(t *testing.T) {
	cases := []struct {
		data    string
		closing byte
		end     int
		closed  bool
		err     string
	}{
		{"1 , 2", ']', 3, false, ""},
		{"1]", ']', 2, true, ""},
		{"1\n\t}", '}', 4, true, ""},
		{"1 2", ']', 2, false, "expected ',' or ']' after an array element, found '2'"},
		{"1 ]", '}', 2, false, "expected ',' or '}' after an object member, found ']'"},
		{"1  ", ']', 3, false, "unexpected end of input in an array"},
		{"1", '}', 1, false, "unexpected end of input in an object"},
	}
	for _, c := range cases {
		end, closed, err := Next([]byte(c.data), 1, c.closing)
		if end != c.end || closed != c.closed || errText(err) != c.err {
			t.Errorf("Next(%q, 1, %q) = %d, %v, %v; want %d, %v, %q", c.data, c.closing, end, closed, err, c.end, c.closed, c.err)
		}
	}
}

func TestKey(t *testing.T) {
	cases := []struct {
		data, key string
		value     int
		err       string
	}{
		{` "a\"b" :  1`, `"a\"b"`, 11, ""},
		{`"k":"v"`, `"k"`, 4, ""},
		{`  `, ``, 2, "unexpected end of input in an object"},
		{`"k"`, ``, 3, "unexpected end of input in an object"},
		{` }`, ``, 1, "expected a string key, found '}'"},
		{`"k" 1`, ``, 4, "expected ':' after an object key, found '1'"},
		{`"k`, ``, 2, "unexpected end of input in a string"},
	}
	for _, c := range cases {
		key, value, err := Key([]byte(c.data), 0)
		if string(key) != c.key || value != c.value || errText(err) != c.err {
			t.Errorf("Key(%q) = %q, %d, %v; want %q, %d, %q", c.data, key, value, err, c.key, c.value, c.err)
		}
	}
}

func TestNotAValueAndTooDeep(t *testing.T) {
	for data, want := range map[string]string{"]": "expected a value, found ']'", "": "unexpected end of input, expected a value"} {
		err := NotAValue([]byte(data), 0)
		if errText(err) != want || err.(*Error).Off != 0 || err.(*Error).EOF != (data == "") {
			t.Errorf("NotAValue(%q) = %#v, want %q", data, err, want)
		}
	}
	if err := TooDeep(7); errText(err) != "nesting deeper than 10000 levels" || err.(*Error).Off != 7 {
		t.Errorf("TooDeep(7) = %#v", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSkipSeparators(t *testing.T) {
	for _, c := range []struct {
		text string
		i    int
		want int
	}{
		{`{"a": 1}`, 4, 6},   // after the key: the colon and a space
		{`[1 , 2]`, 2, 5},    // after an element: the comma and spaces around it
		{"[1,\r\n\t]", 2, 6}, // to the closing bracket
		{`"a:b"`, 0, 0},      // a string is not passed over
		{`1,`, 1, 2},         // to the end of the text
		{`x`, 5, 5},          // past the end: stays
	} {
		if got := SkipSeparators([]byte(c.text), c.i); got != c.want {
			t.Errorf("SkipSeparators(%q, %d) = %d, want %d", c.text, c.i, got, c.want)
		}
	}
}
