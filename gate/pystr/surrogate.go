package pystr

import (
	"bytes"
	"unicode/utf8"
)

// LoneSurrogates decodes raw, a JSON string with its quotes, as Python's json.loads does when
// it holds a lone UTF-16 surrogate escape (\ud800 with no partner): the surrogate stays a code
// point of its own, in its three-byte generalised UTF-8 form, where encoding/json writes
// U+FFFD. An id decoded so is not taken for another id that differs from it only there.
// ok is false, and the caller decodes raw as usual, when raw holds no lone surrogate.
func LoneSurrogates(raw []byte) (text string, ok bool) {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return "", false
	}
	v, err := Parse(raw)
	if err != nil || v.Kind != KindStr || utf8.ValidString(v.Text) {
		return "", false
	}
	return v.Text, true
}
