package jsonreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/outcome"
	"github.com/agentgate/agentgate/gate/reliability"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// MaxShardSize is the most bytes ReadShard reads of a report: a shard's report comes from an
// artifact, which is untrusted, so its size is bounded like a baseline's.
const MaxShardSize = MaxBaselineSize

// ReadShard reads the JSON report at path for a merge. Content that is not a report of this
// version (bad JSON, a member of the wrong type or unknown, another schema, a verdict that
// is none of the three) is an *input.Error naming the file, and the line and column where
// there is one.
func ReadShard(path string) (gate.Shard, error) {
	f, err := input.Open(path)
	if err != nil {
		return gate.Shard{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxShardSize+1))
	if err != nil {
		return gate.Shard{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxShardSize {
		return gate.Shard{}, &input.Error{File: path, Msg: fmt.Sprintf("larger than %d bytes: not read", MaxShardSize)}
	}
	r, err := decodeShard(path, data)
	if err != nil {
		return gate.Shard{}, err
	}
	return gate.Shard{Name: path, Report: r}, nil
}

// decodeShard decodes a report: first its schema alone, so that a report of another version
// is refused as such rather than for a member it lacks, then the whole of it, strictly.
func decodeShard(name string, data []byte) (*gate.Result, error) {
	var se *jsonscan.Error
	if err := jsonscan.Validate(data); errors.As(err, &se) {
		return nil, shardError(name, data, errors.New(se.Msg), int64(se.Off))
	}
	var head struct {
		Schema *int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, shardError(name, data, err, -1)
	}
	switch {
	case head.Schema == nil:
		return nil, &input.Error{File: name, Msg: `not an agentgate JSON report: it has no "schema"`}
	case *head.Schema != Schema:
		return nil, &input.Error{File: name, Msg: fmt.Sprintf("a report of schema %d, but this agentgate merges schema %d: gate every shard with the same agentgate version as the merge", *head.Schema, Schema)}
	}
	var pe *posError
	if err := checkShardSignals(data); errors.As(err, &pe) {
		return nil, shardError(name, data, errors.New(pe.msg), int64(pe.off))
	}
	// The traces are decoded with their outcomes (docs/design.md#outcomes), which reliability.Result does
	// not hold: a shallower "reliability" member takes the place of Result's.
	var doc struct {
		*gate.Result
		Reliability *struct {
			*reliability.Summary
			Traces []outcome.Trace `json:"traces"`
		} `json:"reliability,omitempty"`
	}
	r := new(gate.Result)
	doc.Result = r
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, shardError(name, data, err, dec.InputOffset())
	}
	if rel := doc.Reliability; rel != nil {
		if rel.Summary == nil {
			rel.Summary = new(reliability.Summary)
		}
		r.Reliability = rel.Summary
		r.Reliability.Traces = make([]reliability.Result, len(rel.Traces))
		for i := range rel.Traces {
			r.Reliability.Traces[i] = rel.Traces[i].Result
			r.Reliability.Traces[i].Run = outcome.RunOfJSON(rel.Traces[i].Outcome)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, shardError(name, data, errors.New("more after the report's closing brace"), dec.InputOffset())
	}
	if err := checkHistory(name, r.History); err != nil {
		return nil, err
	}
	if s := r.Reliability; s != nil {
		for i := range s.Traces {
			if v := s.Traces[i].Verdict; v != verdict.Pass && v != verdict.Warn && v != verdict.Fail {
				return nil, &input.Error{File: name, Msg: fmt.Sprintf("reliability.traces[%d] has verdict %s, not PASS, WARN or FAIL", i, input.Quote(string(v)))}
			}
		}
	}
	return r, nil
}

// shardError places a decoding error: at the offset the error names, or else at off (where
// the decoder stopped; -1 when unknown).
func shardError(name string, data []byte, err error, off int64) error {
	msg := err.Error()
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		var at int
		at, msg = input.TypeError(data, int(te.Offset), te)
		off = int64(at)
	case strings.HasPrefix(msg, "json: unknown field "):
		// The decoder has read past the member by then: name it, not a place.
		off, msg = -1, fmt.Sprintf("a member %s that no report of schema %d has: not written by this agentgate", strings.TrimPrefix(msg, "json: unknown field "), Schema)
	}
	if off < 0 || off > int64(len(data)) {
		return &input.Error{File: name, Msg: msg}
	}
	p := jsonscan.Position(data, int(off))
	return &input.Error{File: name, Line: p.Line, Col: p.Col, Msg: msg}
}
