package reliability

import (
	"strings"
	"testing"
)

// TestSuccessClaim checks the success claims falseSuccess finds by word hashes, quoted from
// textWords as the report writes them.
func TestSuccessClaim(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"The booking was updated successfully.", "was updated"},
		{"Updated successfully.", "updated successfully"},
		{"I successfully updated the booking.", "successfully updated"},
		{"Successfully!", "successfully"},
		{"Your flight has been booked.", "been booked"},
		{"Your flight has been successfully booked.", "successfully booked"},
		{"The refund was just sent, and the seat has been changed.", "was just sent"},
		{"I've cancelled the order.", "ve cancelled"},
		{"The order HAS NOW BEEN PLACED.", "been placed"},
		{"It has now updated.", "has now updated"},
		{"Booked: flight 42.", ""},
		{"The flight was booked, but the refund failed.", ""},
		{"Unfortunately the flight was not booked.", ""},
		{"I couldn't update it; the booking was updated earlier.", ""},
		{"The file has been read.", ""},
		{"", ""},
	} {
		got := ""
		if from, to, ok := successClaim(appendWords(nil, c.text)); ok {
			got = strings.Join(textWords(c.text)[from:to], " ")
		}
		if got != c.want {
			t.Errorf("successClaim(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
