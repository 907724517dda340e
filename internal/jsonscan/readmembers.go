package jsonscan

// ReadMembers walks the object that starts at data[i] (after white space) as EachMember does,
// but leaves each value to fn: fn gets the member's key (the JSON string, quotes included) and
// the offset of its value, reads the value (with Skip if it does not want it) and returns the
// offset just past it. A reader that decodes the values so scans each byte once, where
// EachMember has checked a value whole before fn sees it, and a nested object is scanned once
// a level. Skip counts nesting from where fn calls it, not from data[i]: a caller that must
// hold the whole text to MaxDepth checks it with Validate (only a text longer than 2*MaxDepth
// bytes can nest so deep). ReadMembers returns the offset just past the closing '}', or the
// first error, fn's included.
func ReadMembers(data []byte, i int, fn func(key []byte, v int) (end int, err error)) (int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != '{' {
		return i, expectedAt(data, i, "an object")
	}
	if i = SkipSpace(data, i+1); i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		key, v, err := Key(data, i)
		if err != nil {
			return v, err
		}
		end, err := fn(key, v)
		if err != nil {
			return end, err
		}
		if i, err = after(data, end, '}'); err != nil || data[i-1] == '}' {
			return i, err
		}
		i = SkipSpace(data, i)
	}
}

// ReadElements is ReadMembers for an array: fn gets each element's index and offset, reads
// the element (with Skip if it does not want it) and returns the offset just past it.
// ReadElements returns the offset just past the closing ']', or the first error, fn's
// included. A value that is not an array is an error "expected an array, found …".
func ReadElements(data []byte, i int, fn func(j, at int) (end int, err error)) (int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != '[' {
		return i, expectedAt(data, i, "an array")
	}
	if i = SkipSpace(data, i+1); i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for j := 0; ; j++ {
		at := SkipSpace(data, i)
		if at >= len(data) {
			return at, unexpected(data, at)
		}
		end, err := fn(j, at)
		if err != nil {
			return end, err
		}
		if i, err = after(data, end, ']'); err != nil || data[i-1] == ']' {
			return i, err
		}
	}
}
