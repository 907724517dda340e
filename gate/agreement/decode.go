package agreement

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
	"github.com/agentgate/agentgate/internal/jsonscan"
)

// The records of pairs and label files are decoded here with jsonscan, in one pass over each
// record: jsonscan.ReadMembers walks an object and the decoder reads the values it wants
// (String, Number, Literal, EachElement) and skips the others (Skip). The texts it keeps go
// to one buffer a record, which LoadMerged turns into one string and EvaluateMerged reads in
// place.

// The two flags the arbitration reads (docs/design.md#the-source-systems).
const (
	FlagProvenance  = "provenance_violation"
	FlagConstraints = "constraints_mismatch"
)

// Flag sets shared by all decoded pairs: the arbitration reads only the two hard flags, so a
// decoded Pair's Flags holds just those that are true, and pairs share these read-only maps
// instead of allocating one each. Do not modify a decoded Pair's Flags.
var (
	flagsProvenance  = map[string]bool{FlagProvenance: true}
	flagsConstraints = map[string]bool{FlagConstraints: true}
	flagsBoth        = map[string]bool{FlagProvenance: true, FlagConstraints: true}
)

func flagSet(prov, cons bool) map[string]bool {
	switch {
	case prov && cons:
		return flagsBoth
	case prov:
		return flagsProvenance
	case cons:
		return flagsConstraints
	}
	return nil
}

const allowedLabels = "VALID, NOT_IN_CONTEXT, REJECT or ABSTAIN (exact case)"

// fieldError is a problem with what a record holds, not with its syntax, at a byte offset of
// the record.
type fieldError struct {
	off int
	msg string
	// given is the kind of input being read (input.KindPairs or KindLabels) when the record
	// lacks one of its kind's keys: it may be a record of another kind
	given string
}

func (e *fieldError) Error() string { return e.msg }

func fieldErr(off int, format string, args ...any) error {
	return &fieldError{off: off, msg: fmt.Sprintf(format, args...)}
}

// recordError turns a failed decode of rec into an *input.Error at file:line:col. A record that
// is not valid JSON is reported as such even when a problem with its content came first, and
// always at the first syntax error jsonscan.Validate finds, so that neither the message nor
// the place depends on how far the decoder read.
func recordError(rec input.Record, err error) *input.Error {
	if serr := jsonscan.Validate(rec.Data); serr != nil {
		err = serr
	}
	switch e := err.(type) {
	case *jsonscan.Error:
		return rec.ErrorAt(e.Off, "invalid JSON: %s", e.Msg)
	case *fieldError:
		if e.given != "" {
			return rec.ErrorAt(e.off, "%s", e.msg).LooksLikeOther(rec.Data, e.given)
		}
		return rec.ErrorAt(e.off, "%s", e.msg)
	}
	return rec.Errorf("%v", err)
}

// kind names the JSON type of the value at data[i], for error messages.
func kind(data []byte, i int) string {
	if i >= len(data) {
		return jsonscan.KindInvalid.String()
	}
	return jsonscan.KindOf(data[i]).String()
}

// at returns data[i], or 0 past the end.
func at(data []byte, i int) byte {
	if i < len(data) {
		return data[i]
	}
	return 0
}

// span is a text the decoder kept: buf[off:end].
type span struct{ off, end int }

// judgement is a decoded {"label", "reason"}.
type judgement struct {
	code     uint8 // the label's index in Labels, or other
	label    span  // the label, when its code is other (reference profile)
	reason   span
	hasLabel bool
}

// pairRec is a decoded pairs record; its ids are the decoder's cits and ret.
type pairRec struct {
	qid                                  span
	qidNum                               bool
	sch, aud                             judgement
	hasQID, hasSch, hasAud, hasRetrieved bool
	prov, cons                           bool
}

// labelRec is a decoded label-file record.
type labelRec struct {
	qid            span
	qidNum, hasQID bool
	j              judgement
}

// decoder decodes the records of one profile, reusing its memory from record to record.
type decoder struct {
	p        profile.Profile
	noReason bool   // check reasons without keeping them (EvaluateMerged never reads one)
	buf      []byte // the texts kept from the record: qid, reasons, ids, unknown labels
	cits     []span // answer_json.citations
	ret      []span // retrieved_ids
	scratch  []byte // an escaped key or label, unescaped
}

// text returns a kept text.
func (d *decoder) text(sp span) []byte { return d.buf[sp.off:sp.end] }

// keep keeps the text of the JSON string raw (quotes included), unescaped.
func (d *decoder) keep(raw []byte, sur jsonscan.Surrogates) span {
	off := len(d.buf)
	d.buf = jsonscan.AppendUnescaped(d.buf, raw[1:len(raw)-1], sur) // copied at once without escapes
	return span{off, len(d.buf)}
}

// keepRaw keeps raw as it is.
func (d *decoder) keepRaw(raw []byte) span {
	off := len(d.buf)
	d.buf = append(d.buf, raw...)
	return span{off, len(d.buf)}
}

// unescape returns the text of the JSON string raw: its body, or, if it holds escapes, the
// body unescaped in scratch (valid until the next call).
func (d *decoder) unescape(raw []byte) []byte {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	d.scratch = jsonscan.AppendUnescaped(d.scratch[:0], body, jsonscan.Replace)
	return d.scratch
}

// object decodes the record data, which must be one JSON object: read reads the value at v of
// each member named name (escapes decoded). what and keys name the record in the error for
// one that is not an object. It returns where the record starts.
func (d *decoder) object(data []byte, what, keys string, read func(name []byte, v int) (int, error)) (int, error) {
	if len(data) > 2*jsonscan.MaxDepth {
		// Skip counts nesting from the value it starts at, not from the record: only a
		// record this long can nest deeper than MaxDepth, so only it is checked whole first.
		if err := jsonscan.Validate(data); err != nil {
			return 0, err
		}
	}
	start := jsonscan.SkipSpace(data, 0)
	if at(data, start) != '{' {
		return start, fieldErr(start, "expected %s (a JSON object %s), found %s", what, keys, kind(data, start))
	}
	end, err := jsonscan.ReadMembers(data, start, func(key []byte, v int) (int, error) {
		return read(d.unescape(key), v)
	})
	if err == nil && jsonscan.SkipSpace(data, end) < len(data) {
		err = jsonscan.Validate(data) // something follows the object: Validate says what
	}
	return start, err
}

// pair decodes one merged pairs record into r.
func (d *decoder) pair(data []byte, r *pairRec) error {
	*r = pairRec{}
	d.buf, d.cits, d.ret = d.buf[:0], d.cits[:0], d.ret[:0]
	start, err := d.object(data, "a pairs record", `{"qid", "scholar", "auditor", ...}`, func(name []byte, v int) (int, error) {
		switch string(name) {
		case "qid":
			r.hasQID = true
			return d.qid(data, v, &r.qid, &r.qidNum)
		case "scholar":
			r.hasSch = true
			return d.judgement(data, v, "scholar", &r.sch)
		case "auditor":
			r.hasAud = true
			return d.judgement(data, v, "auditor", &r.aud)
		case "answer_json":
			return d.answer(data, v)
		case "retrieved_ids":
			r.hasRetrieved = at(data, v) != 'n'
			return d.ids(data, v, "retrieved_ids", &d.ret)
		case "flags":
			return d.flags(data, v, r)
		}
		return jsonscan.Skip(data, v)
	})
	switch {
	case err != nil:
		return err
	case !r.hasQID:
		return &fieldError{start, `missing field "qid"`, input.KindPairs}
	case !r.hasSch:
		return &fieldError{start, `missing field "scholar"`, input.KindPairs}
	case !r.hasAud:
		return &fieldError{start, `missing field "auditor"`, input.KindPairs}
	}
	return nil
}

// labelRecord decodes one {"qid", "label", "reason"} record into r.
func (d *decoder) labelRecord(data []byte, r *labelRec) error {
	*r = labelRec{}
	d.buf = d.buf[:0]
	start, err := d.object(data, "a label record", `{"qid", "label", "reason"}`, func(name []byte, v int) (int, error) {
		switch string(name) {
		case "qid":
			r.hasQID = true
			return d.qid(data, v, &r.qid, &r.qidNum)
		case "label":
			return d.label(data, v, "", &r.j)
		case "reason":
			return d.reason(data, v, &r.j.reason)
		}
		return jsonscan.Skip(data, v)
	})
	switch {
	case err != nil:
		return err
	case !r.hasQID:
		return &fieldError{start, `missing field "qid"`, input.KindLabels}
	case !r.j.hasLabel:
		return &fieldError{start, `missing field "label"`, input.KindLabels}
	}
	return nil
}

// qid decodes the qid at data[v]: a string (a lone surrogate kept, as Python keeps it, so that
// two qids that differ only there stay two) or a number, kept as written.
func (d *decoder) qid(data []byte, v int, sp *span, num *bool) (int, error) {
	switch c := at(data, v); {
	case c == '"':
		end, _, err := jsonscan.String(data, v)
		if err == nil {
			*sp, *num = d.keep(data[v:end], jsonscan.Keep), false
		}
		return end, err
	case c == '-' || '0' <= c && c <= '9':
		end, _, err := jsonscan.Number(data, v)
		if err == nil {
			*sp, *num = d.keepRaw(data[v:end]), true
		}
		return end, err
	}
	return v, fieldErr(v, "field \"qid\": expected a string or a number, found %s", kind(data, v))
}

// judgement decodes the {"label", "reason"} object at data[v], named field.
func (d *decoder) judgement(data []byte, v int, field string, j *judgement) (int, error) {
	*j = judgement{}
	if at(data, v) != '{' {
		return v, fieldErr(v, "field %q: expected an object {\"label\", \"reason\"}, found %s", field, kind(data, v))
	}
	end, err := jsonscan.ReadMembers(data, v, func(key []byte, v int) (int, error) {
		switch string(d.unescape(key)) {
		case "label":
			return d.label(data, v, field, j)
		case "reason":
			if !d.noReason {
				return d.reason(data, v, &j.reason)
			}
		}
		return jsonscan.Skip(data, v)
	})
	if err == nil && !j.hasLabel {
		err = fieldErr(v, "missing field %q", field+".label")
	}
	return end, err
}

// label decodes the label at data[v] of the judgement named field ("" for a label file's
// record): one of Labels, or, in the reference profile, any string (Compute leaves it out of
// the matrix, as the seed does).
func (d *decoder) label(data []byte, v int, field string, j *judgement) (int, error) {
	j.hasLabel, j.code = true, other
	if at(data, v) != '"' {
		return v, fieldErr(v, "field %q: expected a string, found %s", labelField(field), kind(data, v))
	}
	end, _, err := jsonscan.String(data, v)
	if err != nil {
		return end, err
	}
	text := d.unescape(data[v:end])
	for k, l := range Labels {
		if string(text) == l {
			j.code = uint8(k)
			return end, nil
		}
	}
	if d.p != profile.Reference {
		return v, fieldErr(v, "field %q: unknown label %s: want %s", labelField(field), input.Quote(string(text)), allowedLabels)
	}
	j.label = d.keepRaw(text)
	return end, nil
}

// labelField names the label of the judgement field in messages.
func labelField(field string) string {
	if field == "" {
		return "label"
	}
	return field + ".label"
}

// reason decodes the reason at data[v]: a string, null (kept as ""), or any other JSON kept as
// written (the reason is never scored, so an unusual one is no reason to fail a run).
func (d *decoder) reason(data []byte, v int, sp *span) (int, error) {
	switch at(data, v) {
	case '"':
		end, _, err := jsonscan.String(data, v)
		if err == nil {
			*sp = d.keep(data[v:end], jsonscan.Replace)
		}
		return end, err
	case 'n':
		*sp = span{}
		end, _, err := jsonscan.Literal(data, v)
		return end, err
	}
	end, err := jsonscan.Skip(data, v)
	if err == nil {
		*sp = d.keepRaw(data[v:end])
	}
	return end, err
}

// ids decodes the citations or retrieved_ids at data[v], named field, into *dst: an array of
// strings, or a value Python finds false (null, [], "", 0, false, {}), which the seed reads
// as no ids. Any other value is an error (the seed would iterate a string's characters or an
// object's keys, or crash).
func (d *decoder) ids(data []byte, v int, field string, dst *[]span) (int, error) {
	*dst = (*dst)[:0]
	if at(data, v) != '[' {
		end, truth, err := truthy(data, v)
		if err == nil && truth {
			err = fieldErr(v, "field %q: expected an array of strings, found %s", field, kind(data, v))
		}
		return end, err
	}
	n := 0
	return jsonscan.EachElement(data, v, func(start, end int) error {
		if data[start] != '"' {
			return fieldErr(start, "field \"%s[%d]\": expected a string, found %s", field, n, kind(data, start))
		}
		if n == maxIDs {
			return fieldErr(start, "field \"%s[%d]\": more than %d ids, the most a list of one record may hold", field, n, maxIDs)
		}
		*dst = append(*dst, d.keep(data[start:end], jsonscan.Replace))
		n++
		return nil
	})
}

// maxIDs is the most ids one record's retrieved_ids or answer_json.citations may hold. Each
// costs the decoder a span, and the pair a string, however few bytes it takes in the file (`"",`
// is three): without a count a 32 MB record of them took 850 MB (issue 34, finding 3); a record
// cites a few. A variable so that tests can lower it.
var maxIDs = 1 << 16

// answer decodes the answer_json at data[v]: only its citations are read. A value Python finds
// false means no citations, as in the seed.
func (d *decoder) answer(data []byte, v int) (int, error) {
	d.cits = d.cits[:0]
	if at(data, v) != '{' {
		end, truth, err := truthy(data, v)
		if err == nil && truth {
			err = fieldErr(v, "field \"answer_json\": expected an object, found %s", kind(data, v))
		}
		return end, err
	}
	return jsonscan.ReadMembers(data, v, func(key []byte, v int) (int, error) {
		if string(d.unescape(key)) == "citations" {
			return d.ids(data, v, "answer_json.citations", &d.cits)
		}
		return jsonscan.Skip(data, v)
	})
}

// flags decodes the flags at data[v]: only the two hard flags are read, with Python's
// truthiness in the reference profile; the default profile wants true, false or null there (a
// "false" string is true to Python, and would reject the item).
func (d *decoder) flags(data []byte, v int, r *pairRec) (int, error) {
	r.prov, r.cons = false, false
	switch at(data, v) {
	case 'n':
		end, _, err := jsonscan.Literal(data, v)
		return end, err
	case '{':
	default:
		return v, fieldErr(v, "field \"flags\": expected an object, found %s", kind(data, v))
	}
	return jsonscan.ReadMembers(data, v, func(key []byte, v int) (int, error) {
		name := d.unescape(key)
		dst := &r.prov
		switch string(name) {
		case FlagProvenance:
		case FlagConstraints:
			dst = &r.cons
		default:
			return jsonscan.Skip(data, v)
		}
		if c := at(data, v); d.p != profile.Reference && c != 't' && c != 'f' && c != 'n' {
			return v, fieldErr(v, "field %q: expected true, false or null, found %s", "flags."+string(name), kind(data, v))
		}
		end, truth, err := truthy(data, v)
		*dst = truth
		return end, err
	})
}

// truthy reads the value at data[v] and reports whether Python finds it true: false, null, 0,
// 0.0 (a float that underflows to 0 too), "", [] and {} are false.
func truthy(data []byte, v int) (end int, truth bool, err error) {
	if end, err = jsonscan.Skip(data, v); err != nil {
		return end, false, err
	}
	raw := data[v:end]
	switch raw[0] {
	case 't':
		return end, true, nil
	case 'f', 'n':
		return end, false, nil
	case '"':
		return end, len(raw) > 2, nil
	case '{', '[':
		return end, jsonscan.SkipSpace(raw, 1) < len(raw)-1, nil
	}
	f, _ := strconv.ParseFloat(string(raw), 64)
	return end, f != 0, nil
}
