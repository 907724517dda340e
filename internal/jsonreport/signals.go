package jsonreport

import (
	"fmt"
	"strconv"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// checkSignals checks a run's signals, the value at data[v] of valid JSON text, before the run
// is decoded, and returns the offset just past them: they must be null or an object of numbers
// (or nulls), with (strict) no member that names no signal. reliability.Signals reads its
// members with its own UnmarshalJSON, which encoding/json gives the signals' text alone, so
// that the offset of its type error counts from where they start and a decoder's
// DisallowUnknownFields does not reach them: this places the error at the value at fault, as
// the decoder places a type error in the members it reads itself, and words it as shardError
// words an unknown member. The error is a *posError.
func checkSignals(data []byte, v int, strict bool) (int, error) {
	typeErr := func(at int, want string) error {
		return &posError{off: at, msg: input.Field(jsonscan.PathAt(data, at).String(), jsonscan.Expected(want, jsonscan.KindOf(data[at])))}
	}
	end, err := jsonscan.Skip(data, v)
	switch {
	case err != nil || data[v] == 'n':
		return end, err
	case data[v] != '{':
		return end, typeErr(v, "an object")
	}
	return jsonscan.ReadMembers(data, v, func(key []byte, at int) (int, error) {
		end, err := jsonscan.Skip(data, at)
		switch {
		case err != nil || data[at] == 'n':
			return end, err
		case !isSignal(key):
			if strict {
				return end, &posError{off: -1, msg: fmt.Sprintf("a member %s that no report of schema %d has: not written by this agentgate",
					strconv.Quote(jsonscan.Unquote(key, jsonscan.Replace)), Schema)}
			}
			return end, nil
		}
		if _, err := strconv.ParseFloat(string(data[at:end]), 64); err != nil { // not a number, or beyond float64's range
			return end, typeErr(at, "a number")
		}
		return end, nil
	})
}

// isSignal reports whether key, a JSON string, names a row of the signal table as
// encoding/json matches a key to a field, case folded.
func isSignal(key []byte) bool {
	for i := range reliability.SignalTable {
		if jsonscan.KeyFolds(key, reliability.SignalTable[i].Name) {
			return true
		}
	}
	return false
}

// checkShardSignals checks the signals of every run of a shard, data, as checkSignals does,
// strictly: a shard is decoded with DisallowUnknownFields.
func checkShardSignals(data []byte) error {
	traces := jsonscan.Locate(data, jsonscan.PathOf("reliability", "traces"))
	if traces < 0 || data[traces] != '[' {
		return nil // the decoder says what is wrong
	}
	_, err := jsonscan.ReadElements(data, traces, func(_, at int) (int, error) {
		if data[at] != '{' {
			return jsonscan.Skip(data, at)
		}
		return jsonscan.ReadMembers(data, at, func(key []byte, v int) (int, error) {
			if jsonscan.KeyIs(key, "signals") {
				return checkSignals(data, v, true)
			}
			return jsonscan.Skip(data, v)
		})
	})
	return err
}
