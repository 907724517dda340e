package jsonscan

// SkipIn is Skip for a value that sits inside outer open arrays and objects of the text: the
// nesting limit MaxDepth counts those too, as it does when Skip reads the text from its top, so
// that a reader that walks the outer levels itself and skips the values it does not look into
// calls the same texts valid as Validate, and names the same bracket as too deep.
//
// It costs what Skip costs, and a second look at the value only when the value is long enough
// (more than MaxDepth-outer bytes) to open that many brackets.
func SkipIn(data []byte, i, outer int) (int, error) {
	end, err := Skip(data, i)
	limit := MaxDepth - outer
	if outer <= 0 || end-i <= limit {
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
				return j, errAt(j, "nesting deeper than %d levels", MaxDepth)
			}
		case ']', '}':
			depth--
		}
	}
	return end, err
}
