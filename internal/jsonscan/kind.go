package jsonscan

// Kind is the kind of a JSON value, named for error messages.
type Kind uint8

// The kinds of JSON values; KindInvalid is no value.
const (
	KindInvalid Kind = iota
	KindObject
	KindArray
	KindString
	KindNumber
	KindTrue
	KindFalse
	KindNull
)

// KindOf returns the kind of the value whose first byte is c (white space skipped).
func KindOf(c byte) Kind {
	switch {
	case c == '{':
		return KindObject
	case c == '[':
		return KindArray
	case c == '"':
		return KindString
	case c == '-' || (c >= '0' && c <= '9'):
		return KindNumber
	case c == 't':
		return KindTrue
	case c == 'f':
		return KindFalse
	case c == 'n':
		return KindNull
	}
	return KindInvalid
}

// KindOfValue returns the kind of the value raw holds (white space before it skipped).
func KindOfValue(raw []byte) Kind {
	if i := SkipSpace(raw, 0); i < len(raw) {
		return KindOf(raw[i])
	}
	return KindInvalid
}

// String names the kind as messages do: "an object", "an array", "a string", "a number",
// "true", "false", "null" (input.JSONKind names the wanted kinds in the same words, with
// "an integer" and "true or false").
func (k Kind) String() string {
	switch k {
	case KindObject:
		return "an object"
	case KindArray:
		return "an array"
	case KindString:
		return "a string"
	case KindNumber:
		return "a number"
	case KindTrue:
		return "true"
	case KindFalse:
		return "false"
	case KindNull:
		return "null"
	}
	return "no value"
}

// Expected is the message for a value of kind found where want was expected:
// Expected("an array", KindNumber) is "expected an array, found a number".
func Expected(want string, found Kind) string {
	return "expected " + want + ", found " + found.String()
}
