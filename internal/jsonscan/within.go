package jsonscan

import "fmt"

// SkipIn is Skip for a value that sits inside outer open arrays and objects of the text: the
// nesting limit MaxDepth counts those too, as it does when Skip reads the text from its top, so
// that a reader that walks the outer levels itself and skips the values it does not look into
// calls the same texts valid as Validate, and names the same bracket as too deep.
//
// It costs what Skip costs, and a second look at the value only when the value is long enough
// (more than MaxDepth-outer bytes) to open that many brackets.
func SkipIn(data []byte, i, outer int) (int, error) {
	return skipLimit(data, i, MaxDepth-outer, MaxDepth)
}

// SkipMax is Skip with a nesting limit of its own, below MaxDepth: for a reader that hands the
// text on to a decoder that recurses (encoding/json into nested Go values), whose memory grows
// with the depth. The error for a value nested deeper is "nesting deeper than <limit> levels".
func SkipMax(data []byte, i, limit int) (int, error) {
	return skipLimit(data, i, min(limit, MaxDepth), min(limit, MaxDepth))
}

// skipLimit is Skip that allows limit levels of nesting in the value, and names the text's
// limit as named in its error.
func skipLimit(data []byte, i, limit, named int) (int, error) {
	end, err := Skip(data, i)
	if limit >= MaxDepth || end-i <= limit {
		return end, err
	}
	// Everything before end was read without a problem: find the first bracket too deep.
	depth := 0
	for j := i; j < end; j++ {
		switch data[j] {
		case '"':
			k, _, serr := String(data, j)
			if serr != nil {
				return end, err
			}
			j = k - 1
		case '[', '{':
			if depth++; depth > limit {
				return j, &Error{Off: j, Msg: fmt.Sprintf("nesting deeper than %d levels", named)}
			}
		case ']', '}':
			depth--
		}
	}
	return end, err
}
