package ghemu

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Spec is GitHub's own OpenAPI 3.0 description of its REST API (the file
// generated/api.github.com.json of the npm package @octokit/openapi), used to
// check that the emulator's answers look like GitHub's and that the client
// sends what GitHub accepts.
//
// The validator implements the part of JSON Schema (OpenAPI 3.0 dialect) that
// the description uses: type (with nullable), properties, required,
// additionalProperties, items, enum, allOf, anyOf, oneOf (with OpenAPI's
// discriminator), $ref into the same document, the formats date-time, uri,
// email, int32 and int64, and the bounds minimum, maximum, minLength,
// maxLength, minItems, maxItems and pattern. A keyword it does not know is
// reported as a violation rather than ignored, so a schema it cannot judge
// never passes silently.
type Spec struct {
	doc   map[string]any
	paths []pathTemplate
}

// pathTemplate is one key of the description's "paths" object, split into
// segments; a segment in braces is a parameter.
type pathTemplate struct {
	template string
	segs     []string
	literals int
}

var (
	specMu    sync.Mutex
	specCache = map[string]*Spec{}
)

// LoadSpec reads and parses an OpenAPI description. Parsing the 13 MB file
// takes a noticeable fraction of a second, so results are cached per path for
// the life of the process.
func LoadSpec(path string) (*Spec, error) {
	specMu.Lock()
	defer specMu.Unlock()
	if s, ok := specCache[path]; ok {
		return s, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read OpenAPI description: %w", err)
	}
	s, err := ParseSpec(raw)
	if err != nil {
		return nil, fmt.Errorf("parse OpenAPI description %s: %w", path, err)
	}
	specCache[path] = s
	return s, nil
}

// ParseSpec parses an OpenAPI 3.0 description held in memory.
func ParseSpec(raw []byte) (*Spec, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.0") {
		return nil, fmt.Errorf("openapi version %q: only 3.0.x is supported", v)
	}
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		return nil, errors.New("no paths object")
	}
	s := &Spec{doc: doc}
	for p := range paths {
		t := pathTemplate{template: p, segs: strings.Split(strings.Trim(p, "/"), "/")}
		for _, seg := range t.segs {
			if !isParam(seg) {
				t.literals++
			}
		}
		s.paths = append(s.paths, t)
	}
	// Most literal segments first, so /repos/{o}/{r}/issues/comments/{id}
	// wins over /repos/{o}/{r}/issues/{issue_number}/{x} style templates.
	sort.Slice(s.paths, func(i, j int) bool {
		if s.paths[i].literals != s.paths[j].literals {
			return s.paths[i].literals > s.paths[j].literals
		}
		return s.paths[i].template < s.paths[j].template
	})
	return s, nil
}

// Example returns a fresh copy of the value of the named example in the
// description's components (#/components/examples/NAME), e.g. "pull-request":
// GitHub's own sample answer, which the emulator patches and serves.
func (s *Spec) Example(name string) (any, error) {
	examples, _ := s.doc["components"].(map[string]any)["examples"].(map[string]any)
	ex, ok := examples[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no example %q in the description", name)
	}
	raw, err := json.Marshal(ex["value"])
	if err != nil {
		return nil, fmt.Errorf("example %q: %w", name, err)
	}
	return decodeJSON(raw)
}

func isParam(seg string) bool {
	return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}")
}

// Operation is one documented operation matched from a concrete request.
type Operation struct {
	// ID is GitHub's operationId, such as "issues/create-comment".
	ID string
	// Template is the documented path, such as
	// "/repos/{owner}/{repo}/issues/{issue_number}/comments".
	Template string
	// Method is the upper-case HTTP method.
	Method string

	op         map[string]any
	pathParams map[string]string
	params     []map[string]any
}

// Operation finds the documented operation for a method and a concrete path
// (without any GHES /api/v3 prefix).
func (s *Spec) Operation(method, path string) (*Operation, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	paths := s.doc["paths"].(map[string]any)
	for _, t := range s.paths {
		if len(t.segs) != len(segs) {
			continue
		}
		params := map[string]string{}
		match := true
		for i, seg := range t.segs {
			if isParam(seg) {
				if segs[i] == "" {
					match = false
					break
				}
				v, err := url.PathUnescape(segs[i])
				if err != nil {
					match = false
					break
				}
				params[seg[1:len(seg)-1]] = v
				continue
			}
			if seg != segs[i] {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		item, _ := paths[t.template].(map[string]any)
		op, ok := item[strings.ToLower(method)].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s %s: path %s is documented but not for this method", method, path, t.template)
		}
		o := &Operation{Template: t.template, Method: strings.ToUpper(method), op: op, pathParams: params}
		o.ID, _ = op["operationId"].(string)
		// Path-level parameters apply to every method; operation-level
		// ones override those of the same name and location.
		seen := map[string]bool{}
		for _, list := range []any{op["parameters"], item["parameters"]} {
			arr, _ := list.([]any)
			for _, p := range arr {
				pm, err := s.deref(p)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", method, t.template, err)
				}
				key := fmt.Sprint(pm["in"], "/", pm["name"])
				if seen[key] {
					continue
				}
				seen[key] = true
				o.params = append(o.params, pm)
			}
		}
		return o, nil
	}
	return nil, fmt.Errorf("%s %s: no such path in GitHub's OpenAPI description", method, path)
}

// deref follows $ref until it reaches an object that is not a reference.
func (s *Spec) deref(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object in the description, got %T", v)
	}
	for range 32 {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, nil
		}
		target, err := s.resolve(ref)
		if err != nil {
			return nil, err
		}
		m = target
	}
	return nil, errors.New("$ref chain too long")
}

// resolve looks up a local JSON pointer such as
// "#/components/schemas/issue-comment".
func (s *Spec) resolve(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q: only local references are supported", ref)
	}
	var cur any = s.doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: %q is not inside an object", ref, tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q: no %q", ref, tok)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q: target is not an object", ref)
	}
	return m, nil
}

// ValidateRequest checks a request against the operation's documented path
// and query parameters and request body. It returns nil or an error listing
// every violation, each with where it is and why.
func (s *Spec) ValidateRequest(method, path string, query url.Values, header http.Header, body []byte) error {
	op, err := s.Operation(method, path)
	if err != nil {
		return err
	}
	var v []string
	known := map[string]bool{}
	for _, p := range op.params {
		name, _ := p["name"].(string)
		in, _ := p["in"].(string)
		required, _ := p["required"].(bool)
		schema, _ := p["schema"].(map[string]any)
		var raw string
		var present bool
		switch in {
		case "path":
			raw, present = op.pathParams[name]
		case "query":
			known[name] = true
			present = query.Has(name)
			if present {
				vals := query[name]
				if len(vals) > 1 {
					v = append(v, fmt.Sprintf("query %s: given %d times", name, len(vals)))
				}
				raw = vals[0]
			}
		default:
			continue // headers and cookies: none are used by these operations
		}
		if !present {
			if required {
				v = append(v, fmt.Sprintf("%s parameter %s: required but missing", in, name))
			}
			continue
		}
		if schema != nil {
			v = append(v, s.validateParam(schema, raw, in+" "+name)...)
		}
	}
	for name := range query {
		if !known[name] {
			v = append(v, fmt.Sprintf("query %s: not a documented parameter of %s", name, op.ID))
		}
	}

	rb, hasBody := op.op["requestBody"]
	switch {
	case !hasBody && len(body) > 0:
		v = append(v, fmt.Sprintf("body: %s takes no request body, got %d bytes", op.ID, len(body)))
	case hasBody:
		rbm, err := s.deref(rb)
		if err != nil {
			return fmt.Errorf("%s: %w", op.ID, err)
		}
		required, _ := rbm["required"].(bool)
		if len(body) == 0 {
			if required {
				v = append(v, "body: required but empty")
			}
			break
		}
		v = append(v, s.validateContent(rbm["content"], header.Get("Content-Type"), body, "request body")...)
	}
	return violations(fmt.Sprintf("request %s %s (%s)", op.Method, path, op.ID), v)
}

// ValidateResponse checks a response against what the operation documents
// for that status: the body's schema and the declared headers. GitHub's
// description lists only some error statuses per operation (no 401 on most,
// never 429 or 5xx), while GitHub answers every error with its "basic-error"
// object; an undocumented error status is therefore checked against
// #/components/schemas/basic-error. An undocumented success status is a
// violation.
func (s *Spec) ValidateResponse(method, path string, status int, header http.Header, body []byte) error {
	op, err := s.Operation(method, path)
	if err != nil {
		return err
	}
	var v []string
	responses, _ := op.op["responses"].(map[string]any)
	resp, documented := responses[strconv.Itoa(status)]
	if !documented {
		resp, documented = responses[fmt.Sprintf("%dXX", status/100)]
	}
	if !documented {
		resp, documented = responses["default"]
	}
	switch {
	case documented:
		rm, err := s.deref(resp)
		if err != nil {
			return fmt.Errorf("%s: %w", op.ID, err)
		}
		content, hasContent := rm["content"]
		switch {
		case !hasContent && len(bytes.TrimSpace(body)) > 0:
			v = append(v, fmt.Sprintf("body: status %d is documented without a body, got %d bytes", status, len(body)))
		case hasContent:
			v = append(v, s.validateContent(content, header.Get("Content-Type"), body, fmt.Sprintf("response %d body", status))...)
		}
		if hs, ok := rm["headers"].(map[string]any); ok {
			for name, h := range hs {
				hm, err := s.deref(h)
				if err != nil {
					return fmt.Errorf("%s: %w", op.ID, err)
				}
				val := header.Get(name)
				if val == "" {
					continue // documented headers are optional unless required
				}
				if sch, ok := hm["schema"].(map[string]any); ok {
					v = append(v, s.validateParam(sch, val, "header "+name)...)
				}
				if strings.EqualFold(name, "Link") {
					v = append(v, checkLink(val)...)
				}
			}
		}
	case status >= 400:
		basic := map[string]any{"$ref": "#/components/schemas/basic-error"}
		v = append(v, s.validateJSON(basic, header.Get("Content-Type"), body, fmt.Sprintf("response %d body (undocumented error status, checked as basic-error)", status))...)
	default:
		v = append(v, fmt.Sprintf("status %d is not documented for %s", status, op.ID))
	}
	return violations(fmt.Sprintf("response %d to %s %s (%s)", status, op.Method, path, op.ID), v)
}

// linkPart is one entry of a Link header as GitHub writes it.
var linkPart = regexp.MustCompile(`^<([^>]+)>; rel="(next|prev|first|last)"$`)

// checkLink verifies the RFC 8288 shape GitHub uses for pagination links.
func checkLink(val string) []string {
	var v []string
	for _, part := range strings.Split(val, ", ") {
		m := linkPart.FindStringSubmatch(part)
		if m == nil {
			v = append(v, fmt.Sprintf("header Link: %q is not <url>; rel=\"next|prev|first|last\"", part))
			continue
		}
		if u, err := url.Parse(m[1]); err != nil || !u.IsAbs() {
			v = append(v, fmt.Sprintf("header Link: %q is not an absolute URL", m[1]))
		}
	}
	return v
}

// validateContent picks the media type of a content map and validates a JSON
// body against its schema.
func (s *Spec) validateContent(content any, contentType string, body []byte, where string) []string {
	cm, _ := content.(map[string]any)
	media, ok := cm["application/json"].(map[string]any)
	if !ok {
		return []string{where + ": only application/json content is supported by this validator"}
	}
	schema, ok := media["schema"].(map[string]any)
	if !ok {
		return nil
	}
	return s.validateJSON(schema, contentType, body, where)
}

// validateJSON checks the Content-Type header and validates body against
// schema.
func (s *Spec) validateJSON(schema map[string]any, contentType string, body []byte, where string) []string {
	var v []string
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		v = append(v, fmt.Sprintf("%s: Content-Type %q, want application/json", where, contentType))
	}
	inst, err := decodeJSON(body)
	if err != nil {
		return append(v, fmt.Sprintf("%s: not JSON: %v", where, err))
	}
	for _, e := range s.Validate(schema, inst, "$") {
		v = append(v, where+": "+e)
	}
	return v
}

// decodeJSON decodes one JSON value keeping numbers exact.
func decodeJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var inst any
	if err := dec.Decode(&inst); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return inst, nil
}

// validateParam converts a path, query or header string to the type its
// schema declares, then validates it.
func (s *Spec) validateParam(schema map[string]any, raw, where string) []string {
	sch, err := s.deref(schema)
	if err != nil {
		return []string{where + ": " + err.Error()}
	}
	var inst any = raw
	switch sch["type"] {
	case "integer", "number":
		inst = json.Number(raw)
		if _, ok := new(big.Float).SetString(raw); !ok {
			return []string{fmt.Sprintf("%s: %q is not a number", where, raw)}
		}
	case "boolean":
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return []string{fmt.Sprintf("%s: %q is not a boolean", where, raw)}
		}
		inst = b
	}
	return s.Validate(sch, inst, where)
}

// annotations are keywords that describe a schema without constraining it.
var annotations = map[string]bool{
	"title": true, "description": true, "example": true, "examples": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"externalDocs": true, "xml": true,
}

// assertions are the keywords this validator implements.
var assertions = map[string]bool{
	"$ref": true, "type": true, "nullable": true, "properties": true,
	"required": true, "additionalProperties": true, "items": true,
	"enum": true, "allOf": true, "anyOf": true, "oneOf": true,
	"discriminator": true, "format": true, "minimum": true, "maximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"pattern": true,
}

// Validate checks one decoded JSON value (numbers as json.Number) against a
// schema and returns the violations, each prefixed with a JSONPath-like
// location such as "$.user.login".
func (s *Spec) Validate(schema map[string]any, inst any, at string) []string {
	return s.validate(schema, inst, at, 0)
}

func (s *Spec) validate(schema map[string]any, inst any, at string, depth int) []string {
	if depth > 100 {
		return []string{at + ": schema nesting deeper than 100 (reference cycle?)"}
	}
	if ref, ok := schema["$ref"].(string); ok {
		// OpenAPI 3.0: siblings of $ref are ignored.
		target, err := s.resolve(ref)
		if err != nil {
			return []string{at + ": " + err.Error()}
		}
		return s.validate(target, inst, at, depth+1)
	}
	var v []string
	for k := range schema {
		if !assertions[k] && !annotations[k] && !strings.HasPrefix(k, "x-") {
			v = append(v, fmt.Sprintf("%s: schema keyword %q is not supported by this validator", at, k))
		}
	}
	nullable, _ := schema["nullable"].(bool)
	if inst == nil {
		if nullable {
			return v
		}
		if _, typed := schema["type"]; typed {
			return append(v, fmt.Sprintf("%s: null is not allowed (type %v, not nullable)", at, schema["type"]))
		}
	}

	if t, ok := schema["type"].(string); ok && inst != nil {
		if got := jsonType(inst); !typeMatches(t, inst) {
			// Nothing below can be judged against the wrong type.
			return append(v, fmt.Sprintf("%s: expected %s, got %s", at, t, got))
		}
	}

	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if jsonEqual(e, inst) {
				found = true
				break
			}
		}
		if !found && !(inst == nil && nullable) {
			v = append(v, fmt.Sprintf("%s: %s is not one of %s", at, show(inst), show(enum)))
		}
	}

	if f, ok := schema["format"].(string); ok {
		if msg := checkFormat(f, inst); msg != "" {
			v = append(v, at+": "+msg)
		}
	}
	v = append(v, checkBounds(schema, inst, at)...)

	switch x := inst.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				name, _ := r.(string)
				if _, ok := x[name]; !ok {
					v = append(v, fmt.Sprintf("%s: required property %q is missing", at, name))
				}
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			where := at + "." + k
			if ps, ok := props[k].(map[string]any); ok {
				v = append(v, s.validate(ps, x[k], where, depth+1)...)
				continue
			}
			switch ap := schema["additionalProperties"].(type) {
			case bool:
				if !ap {
					v = append(v, fmt.Sprintf("%s: property not allowed (additionalProperties: false)", where))
				}
			case map[string]any:
				v = append(v, s.validate(ap, x[k], where, depth+1)...)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range x {
				v = append(v, s.validate(items, e, fmt.Sprintf("%s[%d]", at, i), depth+1)...)
			}
		}
	}

	if all, ok := schema["allOf"].([]any); ok {
		for i, sub := range all {
			sm, _ := sub.(map[string]any)
			for _, e := range s.validate(sm, inst, at, depth+1) {
				v = append(v, fmt.Sprintf("%s (allOf[%d])", e, i))
			}
		}
	}
	if anyOf, ok := schema["anyOf"].([]any); ok {
		var why []string
		matched := false
		for i, sub := range anyOf {
			sm, _ := sub.(map[string]any)
			errs := s.validate(sm, inst, at, depth+1)
			if len(errs) == 0 {
				matched = true
				break
			}
			why = append(why, fmt.Sprintf("anyOf[%d]: %s", i, strings.Join(errs, "; ")))
		}
		if !matched {
			v = append(v, fmt.Sprintf("%s: matches none of anyOf (%s)", at, strings.Join(why, " | ")))
		}
	}
	if oneOf, ok := schema["oneOf"].([]any); ok {
		v = append(v, s.validateOneOf(schema, oneOf, inst, at, depth)...)
	}
	return v
}

// validateOneOf applies oneOf: exactly one branch must match, unless an
// OpenAPI discriminator names the branch by a property of the instance.
func (s *Spec) validateOneOf(schema map[string]any, oneOf []any, inst any, at string, depth int) []string {
	if d, ok := schema["discriminator"].(map[string]any); ok {
		prop, _ := d["propertyName"].(string)
		if obj, ok := inst.(map[string]any); ok {
			if val, ok := obj[prop].(string); ok {
				mapping, _ := d["mapping"].(map[string]any)
				ref, ok := mapping[val].(string)
				if !ok {
					ref = "#/components/schemas/" + val
				}
				return s.validate(map[string]any{"$ref": ref}, inst, at, depth+1)
			}
		}
	}
	var matched []int
	var why []string
	for i, sub := range oneOf {
		sm, _ := sub.(map[string]any)
		errs := s.validate(sm, inst, at, depth+1)
		if len(errs) == 0 {
			matched = append(matched, i)
			continue
		}
		why = append(why, fmt.Sprintf("oneOf[%d]: %s", i, strings.Join(errs, "; ")))
	}
	switch len(matched) {
	case 1:
		return nil
	case 0:
		return []string{fmt.Sprintf("%s: matches none of oneOf (%s)", at, strings.Join(why, " | "))}
	default:
		return []string{fmt.Sprintf("%s: matches %d branches of oneOf %v, exactly one allowed", at, len(matched), matched)}
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(inst any) string {
	switch x := inst.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", inst)
}

func isInteger(n json.Number) bool {
	f, ok := new(big.Float).SetString(string(n))
	return ok && f.IsInt()
}

func typeMatches(t string, inst any) bool {
	got := jsonType(inst)
	switch t {
	case "number":
		return got == "number" || got == "integer"
	default:
		return got == t
	}
}

// jsonEqual compares two decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		af, _ := new(big.Float).SetString(string(an))
		bf, _ := new(big.Float).SetString(string(bn))
		return af != nil && bf != nil && af.Cmp(bf) == 0
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb)
}

// show renders a value for an error message, shortened.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// checkFormat validates the formats these operations use; other formats are
// annotations in JSON Schema and are accepted.
func checkFormat(format string, inst any) string {
	switch format {
	case "date-time":
		s, ok := inst.(string)
		if !ok {
			return ""
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Sprintf("%q is not an RFC 3339 date-time", s)
		}
	case "uri":
		s, ok := inst.(string)
		if !ok {
			return ""
		}
		if u, err := url.Parse(s); err != nil || !u.IsAbs() {
			return fmt.Sprintf("%q is not an absolute URI", s)
		}
	case "email":
		s, ok := inst.(string)
		if ok && !strings.Contains(s, "@") {
			return fmt.Sprintf("%q is not an e-mail address", s)
		}
	case "int32", "int64":
		n, ok := inst.(json.Number)
		if !ok {
			return ""
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || (format == "int32" && (i < math.MinInt32 || i > math.MaxInt32)) {
			return fmt.Sprintf("%s does not fit %s", n, format)
		}
	}
	return ""
}

// checkBounds applies the numeric, length and pattern keywords.
func checkBounds(schema map[string]any, inst any, at string) []string {
	var v []string
	num := func(k string) (*big.Float, bool) {
		n, ok := schema[k].(json.Number)
		if !ok {
			return nil, false
		}
		f, ok := new(big.Float).SetString(string(n))
		return f, ok
	}
	count := func(k string) (int, bool) {
		n, ok := schema[k].(json.Number)
		if !ok {
			return 0, false
		}
		i, err := strconv.Atoi(string(n))
		return i, err == nil
	}
	switch x := inst.(type) {
	case json.Number:
		f, ok := new(big.Float).SetString(string(x))
		if !ok {
			break
		}
		if m, ok := num("minimum"); ok && f.Cmp(m) < 0 {
			v = append(v, fmt.Sprintf("%s: %s is below the minimum %s", at, x, schema["minimum"]))
		}
		if m, ok := num("maximum"); ok && f.Cmp(m) > 0 {
			v = append(v, fmt.Sprintf("%s: %s is above the maximum %s", at, x, schema["maximum"]))
		}
	case string:
		n := utf8.RuneCountInString(x)
		if m, ok := count("minLength"); ok && n < m {
			v = append(v, fmt.Sprintf("%s: length %d is below minLength %d", at, n, m))
		}
		if m, ok := count("maxLength"); ok && n > m {
			v = append(v, fmt.Sprintf("%s: length %d is above maxLength %d", at, n, m))
		}
		if p, ok := schema["pattern"].(string); ok {
			re, err := regexp.Compile(p)
			switch {
			case err != nil:
				v = append(v, fmt.Sprintf("%s: pattern %q cannot be checked by Go's regexp: %v", at, p, err))
			case !re.MatchString(x):
				v = append(v, fmt.Sprintf("%s: %q does not match pattern %q", at, x, p))
			}
		}
	case []any:
		if m, ok := count("minItems"); ok && len(x) < m {
			v = append(v, fmt.Sprintf("%s: %d items, below minItems %d", at, len(x), m))
		}
		if m, ok := count("maxItems"); ok && len(x) > m {
			v = append(v, fmt.Sprintf("%s: %d items, above maxItems %d", at, len(x), m))
		}
	}
	return v
}

// ValidationError lists the ways one request or response departs from
// GitHub's OpenAPI description.
type ValidationError struct {
	// Subject says which request or response, e.g.
	// "response 201 to POST /repos/o/r/issues/1/comments (issues/create-comment)".
	Subject string
	// Violations are "location: reason" strings.
	Violations []string
}

func (e *ValidationError) Error() string {
	return e.Subject + " breaks GitHub's OpenAPI description:\n  " + strings.Join(e.Violations, "\n  ")
}

func violations(subject string, v []string) error {
	if len(v) == 0 {
		return nil
	}
	return &ValidationError{Subject: subject, Violations: slices.Clip(v)}
}
