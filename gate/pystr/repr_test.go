package pystr

import (
	"errors"
	"strings"
	"testing"
)

// reprCases were produced by CPython 3.11: for each JSON text s a throwaway script printed
// repr(json.loads(s)) as a Go literal.
var reprCases = []struct{ json, repr string }{
	{"{}", "{}"},
	{"[]", "[]"},
	{"null", "None"},
	{"true", "True"},
	{"false", "False"},
	{"0", "0"},
	{"-0", "0"},
	{"123456789012345678901234567890", "123456789012345678901234567890"},
	{"-17", "-17"},
	{"1.0", "1.0"},
	{"1e16", "1e+16"},
	{"1E16", "1e+16"},
	{"1e15", "1000000000000000.0"},
	{"1.5e-07", "1.5e-07"},
	{"0.0001", "0.0001"},
	{"0.00001", "1e-05"},
	{"-0.0", "-0.0"},
	{"1e400", "inf"},
	{"-1e400", "-inf"},
	{"1e-400", "0.0"},
	{"2.5", "2.5"},
	{"100.0", "100.0"},
	{"1.7976931348623157e308", "1.7976931348623157e+308"},
	{"5e-324", "5e-324"},
	{"0.1", "0.1"},
	{"123456789.123456789", "123456789.12345679"},
	{"9999999999999998.0", "9999999999999998.0"},
	{"12345678901234567.0", "1.2345678901234568e+16"},
	{"1.23e-5", "1.23e-05"},
	{"3.14159e+2", "314.159"},
	{"NaN", "nan"},
	{"Infinity", "inf"},
	{"-Infinity", "-inf"},
	{"\"abc\"", "'abc'"},
	{"\"it's\"", "\"it's\""},
	{"\"say \\\"hi\\\"\"", "'say \"hi\"'"},
	{"\"both ' and \\\"\"", "'both \\' and \"'"},
	{"\"tab\\tnl\\ncr\\r\"", "'tab\\tnl\\ncr\\r'"},
	{"\"back\\\\slash\"", "'back\\\\slash'"},
	{"\"\\u0000\\u001f\\u007f\"", "'\\x00\\x1f\\x7f'"},
	{"\"\\u00a0\\u00ad\\u00e9\"", "'\\xa0\\xad\u00e9'"},
	{"\"\\u2028\\u2029\\u200b\"", "'\\u2028\\u2029\\u200b'"},
	{"\"\\ud83d\\ude00\"", "'\U0001f600'"},
	{"\"\\ud800\"", "'\\ud800'"},
	{"\"\\udc00x\"", "'\\udc00x'"},
	{"\"\\ud800\\u0041\"", "'\\ud800A'"},
	{"\"\\ue000\"", "'\\ue000'"},
	{"\"\\uffff\"", "'\\uffff'"},
	{"\"\\/\"", "'/'"},
	{"\"\u00e9\u4e2d\u6587\"", "'\u00e9\u4e2d\u6587'"},
	{"\"\u0130\"", "'\u0130'"},
	{"\"\\b\\f\"", "'\\x08\\x0c'"},
	{"\"\\u0085\"", "'\\x85'"},
	{"\"\\u3000\"", "'\\u3000'"},
	{"\"\\ufeff\"", "'\\ufeff'"},
	{"{\"a\": 1, \"b\": [1, 2.0, null, true], \"c\": {\"d\": \"x'y\"}}", "{'a': 1, 'b': [1, 2.0, None, True], 'c': {'d': \"x'y\"}}"},
	{"{\"b\": 1, \"a\": 2, \"b\": 3}", "{'b': 3, 'a': 2}"},
	{"{\"q\":\"x\"}", "{'q': 'x'}"},
	{"[{\"k\":[]}, {}, [[]]]", "[{'k': []}, {}, [[]]]"},
	{" \t\n {\"sp\" : 1 } \r\n", "{'sp': 1}"},
	{"{\"url\": \"https://api.example.com/data\", \"method\": \"GET\"}", "{'url': 'https://api.example.com/data', 'method': 'GET'}"},
	{"\"\\udbff\\udfff\"", "'\\U0010ffff'"},
	{"\"\U0001f600\"", "'\U0001f600'"},
	{"\"\\ud834\\udd1e\"", "'\U0001d11e'"},
	{"\"\\uDBFF\\uDFFF\"", "'\\U0010ffff'"},
}

func TestReprMatchesCPython(t *testing.T) {
	for _, c := range reprCases {
		got, err := Repr([]byte(c.json))
		if err != nil {
			t.Errorf("Repr(%q): unexpected error %v", c.json, err)
			continue
		}
		if got != c.repr {
			t.Errorf("Repr(%q) = %q, CPython says %q", c.json, got, c.repr)
		}
	}
}

// rejectedCases are texts that CPython 3.11's json.loads rejects (its message in the comment).
var rejectedCases = []string{
	"",            // Expecting value: line 1 column 1 (char 0)
	"{",           // Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
	"[1,]",        // Expecting value: line 1 column 4 (char 3)
	"{\"a\":1,}",  // Expecting property name enclosed in double quotes: line 1 column 8 (char 7)
	"{'a':1}",     // Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
	"01",          // Extra data: line 1 column 2 (char 1)
	"1.",          // Extra data: line 1 column 2 (char 1)
	"1e",          // Extra data: line 1 column 2 (char 1)
	"-",           // Expecting value: line 1 column 1 (char 0)
	"\"\x01\"",    // Invalid control character at: line 1 column 2 (char 1)
	"\"\\x\"",     // Invalid \escape: line 1 column 2 (char 1)
	"\"\\u12\"",   // Invalid \uXXXX escape: line 1 column 3 (char 2)
	"\"\\u12G4\"", // Invalid \uXXXX escape: line 1 column 3 (char 2)
	"nul",         // Expecting value: line 1 column 1 (char 0)
	"tru",         // Expecting value: line 1 column 1 (char 0)
	"[1 2]",       // Expecting ',' delimiter: line 1 column 4 (char 3)
	"{\"a\" 1}",   // Expecting ':' delimiter: line 1 column 6 (char 5)
	"{1:2}",       // Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
	"1 2",         // Extra data: line 1 column 3 (char 2)
	"\"abc",       // Unterminated string starting at: line 1 column 1 (char 0)
	".5",          // Expecting value: line 1 column 1 (char 0)
	"+1",          // Expecting value: line 1 column 1 (char 0)
	"infinity",    // Expecting value: line 1 column 1 (char 0)
	"-NaN",        // Expecting value: line 1 column 1 (char 0)
}

func TestReprRejectsWhatJSONLoadsRejects(t *testing.T) {
	for _, c := range rejectedCases {
		got, err := Repr([]byte(c))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Repr(%q) = %q, %v; CPython rejects it", c, got, err)
		}
	}
}

// strCases: str(json.loads(s)) printed by CPython 3.11.
var strCases = []struct{ json, str string }{
	{"\"abc\"", "abc"},
	{"\"it's\"", "it's"},
	{"\"\\u00e9\\n\"", "\u00e9\n"},
	{"{\"a\": \"b\"}", "{'a': 'b'}"},
	{"[1, \"x\"]", "[1, 'x']"},
	{"1.0", "1.0"},
	{"null", "None"},
}

func TestStrMatchesCPython(t *testing.T) {
	for _, c := range strCases {
		got, err := Str([]byte(c.json))
		if err != nil || got != c.str {
			t.Errorf("Str(%q) = %q, %v; CPython says %q", c.json, got, err, c.str)
		}
	}
}

// truthyCases: bool(json.loads(s)) printed by CPython 3.11.
var truthyCases = []struct {
	json   string
	truthy bool
}{
	{"null", false},
	{"false", false},
	{"true", true},
	{"0", false},
	{"-0", false},
	{"1", true},
	{"0.0", false},
	{"-0.0", false},
	{"0e5", false},
	{"NaN", true},
	{"\"\"", false},
	{"\" \"", true},
	{"[]", false},
	{"[0]", true},
	{"{}", false},
	{"{\"a\":null}", true},
}

func TestTruthyMatchesCPython(t *testing.T) {
	for _, c := range truthyCases {
		v, err := Parse([]byte(c.json))
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.json, err)
		}
		if v.Truthy() != c.truthy {
			t.Errorf("bool(%s) = %v, CPython says %v", c.json, v.Truthy(), c.truthy)
		}
	}
}

// A dict with more keys than the linear scan handles still merges a repeated key the way
// Python's dict does (first position, last value); the expected text follows from that rule.
func TestParseMergesDuplicateKeysInLargeObjects(t *testing.T) {
	var in, want strings.Builder
	in.WriteString("{")
	want.WriteString("{")
	for i := 0; i < 20; i++ {
		if i > 0 {
			in.WriteString(",")
			want.WriteString(", ")
		}
		k := string(rune('a' + i))
		in.WriteString(`"` + k + `":0`)
		if k == "d" {
			want.WriteString("'d': 9")
		} else {
			want.WriteString("'" + k + "': 0")
		}
	}
	in.WriteString(`,"d":9}`)
	want.WriteString("}")
	got, err := Repr([]byte(in.String()))
	if err != nil || got != want.String() {
		t.Fatalf("Repr = %q, %v; want %q", got, err, want.String())
	}
}

// Invalid UTF-8 cannot reach Python as str; Parse reads each bad byte as U+FFFD rather than
// failing, so the repr is still valid UTF-8.
func TestParseReplacesInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"\"a\xffb\"":    "'a\ufffdb'",
		"\"a\xff\\nb\"": "'a\ufffd\\nb'", // the bad byte before an escape
		"\"ab\\n\xff\"": "'ab\\n\ufffd'", // and after one
	} {
		got, err := Repr([]byte(in))
		if err != nil || got != want {
			t.Errorf("Repr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseBoundsNesting(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := Parse([]byte(deep)); err == nil {
		t.Fatal("Parse accepted nesting deeper than maxDepth")
	}
}

// FormatFloat is also used on its own (scores in the RS-1 report); these are repr(x) from
// CPython 3.11 for values not reachable through a JSON literal.
func TestFormatFloatMatchesCPython(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0.5619166666666666, "0.5619166666666666"},
		{1.0 / 3.0, "0.3333333333333333"},
		{0.21, "0.21"},
		{1e-5, "1e-05"},
		{123456.0, "123456.0"},
		{-2.5e20, "-2.5e+20"},
	}
	for _, c := range cases {
		if got := FormatFloat(c.f); got != c.want {
			t.Errorf("FormatFloat(%v) = %q, CPython says %q", c.f, got, c.want)
		}
	}
}

// FuzzRepr checks that no input panics and that whatever is accepted prints as valid UTF-8.
func FuzzRepr(f *testing.F) {
	for _, c := range reprCases {
		f.Add([]byte(c.json))
	}
	for _, c := range rejectedCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Repr(b)
		if err == nil && !utf8ValidString(s) {
			t.Fatalf("Repr(%q) = %q is not valid UTF-8", b, s)
		}
	})
}

func utf8ValidString(s string) bool { return strings.ToValidUTF8(s, "\x00") == s }

// Parse's errors are jsonscan's, at the byte offset of the problem in the text it was given
// (before invalid UTF-8 was replaced).
func TestParseErrors(t *testing.T) {
	cases := []struct {
		json string
		want SyntaxError
	}{
		{"[1 2]", SyntaxError{3, "expected ',' or ']' after an array element, found '2'"}},
		{"{\"a\":1,}", SyntaxError{7, "expected a string key, found '}'"}},
		{"{\"a\" 1}", SyntaxError{5, "expected ':' after an object key, found '1'"}},
		{"[1,]", SyntaxError{3, "expected a value, found ']'"}},
		{"1.", SyntaxError{2, "unexpected end of input in a number"}},
		{"\"\\x\"", SyntaxError{1, `invalid escape \x`}},
		{"\"\x01\"", SyntaxError{1, "control character U+0001 in a string: it must be escaped"}},
		{"nul", SyntaxError{3, "unexpected end of input in null"}},
		{"-NaN", SyntaxError{1, "invalid number: expected a digit, found 'N'"}},
		{"NaN x", SyntaxError{4, "unexpected 'x' after the value"}},
		{"[\"\xff\xfe\", \"\xff\" x]", SyntaxError{11, "expected ',' or ']' after an array element, found 'x'"}},
		{"", SyntaxError{0, "unexpected end of input, expected a value"}},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.json))
		var se *SyntaxError
		if !errors.As(err, &se) || *se != c.want {
			t.Errorf("Parse(%q): %v, want %v", c.json, err, &c.want)
		}
	}
}

// Parse nests as deep as jsonscan allows (encoding/json's limit), and no deeper.
func TestParseNestingLimit(t *testing.T) {
	if _, err := Parse([]byte(strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth))); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err)
	}
	deep := strings.Repeat(`{"a":[`, maxDepth/2) + "1" + strings.Repeat("]}", maxDepth/2)
	if _, err := Parse([]byte("[" + deep + "]")); err == nil || err.Error() != "invalid JSON at byte 30000: nesting deeper than 10000 levels" {
		t.Errorf("%d levels: %v", maxDepth+1, err)
	}
}
