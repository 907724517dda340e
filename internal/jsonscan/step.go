package jsonscan

// The steps of a reader that walks a grammar of its own around JSON's (pystr reads Python's
// json.loads, which also takes NaN and Infinity; gate/input resumes an array in the middle of
// a file) and so cannot hand whole objects and arrays to EachMember, EachElement or Skip: with
// them it says what is wrong in the words those use.

// Next passes over the white space and the ',' or the closing byte ('}' or ']') that follow a
// member or an element ending at i. It returns the offset just past them and whether the
// container closed there.
func Next(data []byte, i int, closing byte) (end int, closed bool, err error) {
	if end, err = after(data, i, closing); err != nil {
		return end, false, err
	}
	return end, data[end-1] == closing, nil
}

// Key scans the key of an object member at data[i] (white space before it skipped) and the
// ':' after it. It returns the key, quotes included (see KeyIs and Unquote), and the offset
// where the member's value starts, white space skipped.
func Key(data []byte, i int) (key []byte, value int, err error) {
	i = SkipSpace(data, i)
	if i >= len(data) {
		return nil, i, errEnd(i, " in an object")
	}
	if data[i] != '"' {
		return nil, i, errAt(i, "expected a string key, found %s", Found(data, i))
	}
	end, _, err := String(data, i)
	if err != nil {
		return nil, end, err
	}
	if value, err = Colon(data, end); err != nil {
		return nil, value, err
	}
	return data[i:end], value, nil
}

// NotAValue is the error for data[i], where a value must start and none does (the end of the
// input included).
func NotAValue(data []byte, i int) error { return unexpected(data, i) }

// TooDeep is the error for an object or an array at data[i] nested inside MaxDepth others.
func TooDeep(i int) error { return errAt(i, "nesting deeper than %d levels", MaxDepth) }

// SkipSeparators passes over white space, commas and colons from data[i]: from where a reader
// of tokens (encoding/json's Decoder, whose InputOffset stops before them) stands to where the
// next value or closing bracket starts.
func SkipSeparators(data []byte, i int) int {
	for i < len(data) && (IsSpace(data[i]) || data[i] == ',' || data[i] == ':') {
		i++
	}
	return i
}
