package pystr

import "testing"

func TestParseLiteral(t *testing.T) {
	for _, c := range []struct{ in, repr string }{
		// what str(dict) prints for arguments, as some harnesses write them
		{`{'user_id': 'sara_doe_496', 'zip': '19122'}`, `{'user_id': 'sara_doe_496', 'zip': '19122'}`},
		{`{'order_id': '#W123', 'item_ids': ['1', '2'], 'qty': 2, 'gift': True, 'note': None, 'f': -1.5}`,
			`{'order_id': '#W123', 'item_ids': ['1', '2'], 'qty': 2, 'gift': True, 'note': None, 'f': -1.5}`},
		{`{"it's": "a \"b\"", 'c': 'd\'e\n\x41\u00e9'}`, `{"it's": 'a "b"', 'c': "d'e\nAé"}`},
		{`{'t': (1, 2,), 'e': {}, 'l': [], 1: 'one', 'x': inf, 'y': -inf}`,
			`{'t': [1, 2], 'e': {}, 'l': [], '1': 'one', 'x': inf, 'y': -inf}`},
		{` ['a' , u'b'] `, `['a', 'b']`},
		{`{'a': 1, 'a': 2}`, `{'a': 2}`},
		{`{'n': 1_000, 'm': 1e3, 'z': -0}`, `{'n': 1000, 'm': 1000.0, 'z': 0}`},
	} {
		v, err := ParseLiteral([]byte(c.in))
		if err != nil {
			t.Errorf("ParseLiteral(%s): %v", c.in, err)
			continue
		}
		if got := v.Repr(); got != c.repr {
			t.Errorf("ParseLiteral(%s) = %s, want %s", c.in, got, c.repr)
		}
	}
	for _, in := range []string{``, `not json`, `{user_id: 'x'}`, `{'a': 1`, `{'a' 1}`, `'open`, `{'a': 1} extra`,
		`{['a']: 1}`, `Nonesuch`, `{'a': nope}`, `I called the tool`, `'a\x4'`, `{'a': 1,, }`} {
		if v, err := ParseLiteral([]byte(in)); err == nil {
			t.Errorf("ParseLiteral(%q) = %s, want an error", in, v.Repr())
		}
	}
}
