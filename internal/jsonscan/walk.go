package jsonscan

// EachMember walks the object that starts at data[i] (after white space), checking it whole,
// and calls fn for each member with its key (the JSON string, quotes included: see KeyIs and
// Unquote) and the offsets [start, end) of its value. It returns the offset just past the
// closing '}', or the first error, fn's included. A value that is not an object is an error
// "expected an object, found …".
func EachMember(data []byte, i int, fn func(key []byte, start, end int) error) (int, error) {
	return ReadMembers(data, i, func(key []byte, start int) (int, error) {
		end, err := Skip(data, start)
		if err != nil {
			return end, err
		}
		return end, fn(key, start, end)
	})
}

// EachElement walks the array that starts at data[i] (after white space), checking it whole,
// and calls fn with the offsets [start, end) of each element. It returns the offset just past
// the closing ']', or the first error, fn's included. A value that is not an array is an error
// "expected an array, found …".
func EachElement(data []byte, i int, fn func(start, end int) error) (int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != '[' {
		return i, expectedAt(data, i, "an array")
	}
	if i = SkipSpace(data, i+1); i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for {
		start := SkipSpace(data, i)
		end, err := Skip(data, start)
		if err != nil {
			return end, err
		}
		if err := fn(start, end); err != nil {
			return end, err
		}
		if i, err = after(data, end, ']'); err != nil || data[i-1] == ']' {
			return i, err
		}
	}
}

// after passes over the white space and the ',' or the closing byte that follow a member or
// element ending at i, and returns the offset just past it.
func after(data []byte, i int, closing byte) (int, error) {
	i = SkipSpace(data, i)
	what := "an object member"
	in := " in an object"
	if closing == ']' {
		what, in = "an array element", " in an array"
	}
	switch {
	case i >= len(data):
		return i, errEnd(i, in)
	case data[i] == ',' || data[i] == closing:
		return i + 1, nil
	}
	return i, errAt(i, "expected ',' or '%c' after %s, found %s", closing, what, Found(data, i))
}

// expectedAt is the error for a value at data[i] that is not want.
func expectedAt(data []byte, i int, want string) error {
	if i >= len(data) {
		return errEnd(i, ", expected "+want)
	}
	if k := KindOf(data[i]); k != KindInvalid {
		return errAt(i, "%s", Expected(want, k))
	}
	return errAt(i, "expected %s, found %s", want, Found(data, i))
}
