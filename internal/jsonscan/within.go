package jsonscan

// SkipIn is Skip for a value that sits inside outer open arrays and objects of the text: the
// nesting limit MaxDepth counts those too, as it does when Skip reads the text from its top, so
// that a reader that walks the outer levels itself and skips the values it does not look into
// calls the same texts valid as Validate, and names the same bracket as too deep.
func SkipIn(data []byte, i, outer int) (int, error) {
	return skip(data, i, max(MaxDepth-outer, 0), MaxDepth)
}

// SkipMax is Skip with a nesting limit of its own, below MaxDepth: for a reader that hands the
// text on to a decoder that recurses (encoding/json into nested Go values), whose memory grows
// with the depth. The error for a value nested deeper is "nesting deeper than <limit> levels".
func SkipMax(data []byte, i, limit int) (int, error) {
	limit = min(limit, MaxDepth)
	return skip(data, i, limit, limit)
}
