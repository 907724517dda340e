package numfmt

import (
	"fmt"
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {20000, "20,000"}, {120000, "120,000"},
		{5319116, "5,319,116"}, {-1234, "-1,234"}, {-999, "-999"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestAppendCountAppends(t *testing.T) {
	if got := string(AppendCount([]byte("total "), 1234567)); got != "total 1,234,567" {
		t.Errorf("got %q", got)
	}
}

func ExampleCount() {
	fmt.Println(Count(5319116), Count(999))
	// Output: 5,319,116 999
}
