package entrypoint

import (
	"bytes"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/agentgate/agentgate/internal/secrets"
)

// redacted is what a secret is shown as, as the runner shows a masked value.
const redacted = "***"

// tokensIn returns the credentials of a known shape in s (a GitHub token, an OpenAI key, …:
// internal/secrets): a config value of such a shape is a secret whatever key it sits under,
// and a token pasted under pa-min must not be quoted by "is not a number".
func tokensIn(s string) []string { return secrets.Find(s) }

// redactor replaces every secret agentgate knows (the github-token, from the input or the
// config file, token-shaped config values, and the base64 forms of each) and every credential
// of a known shape (internal/secrets) by *** in what it writes: messages, annotations, the job
// summary, the report files and the PR comment (docs/security.md, "The token"). The
// ::add-mask:: commands go out through a writer of their own, not through it.
type redactor struct {
	mu      sync.Mutex
	secrets []string // longest first, so a secret holding another goes whole
}

// add records secrets, and their base64 forms (secrets.Encodings: actions/checkout stores
// the token in .git/config as "AUTHORIZATION: basic base64(x-access-token:TOKEN)"); empty and
// one-character values are left alone (they would redact every other word, and the runner
// does not mask them either).
func (r *redactor) add(given ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range given {
		if len(strings.TrimSpace(s)) <= 1 {
			continue
		}
		for _, v := range append([]string{s}, secrets.Encodings(s)...) {
			if !slices.Contains(r.secrets, v) {
				r.secrets = append(r.secrets, v)
			}
		}
	}
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
}

// list returns the secrets, longest first.
func (r *redactor) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.secrets)
}

// String is s with every secret and every credential of a known shape replaced by ***, and
// every visible prefix of a secret where s was cut (see maskCutPrefixes).
func (r *redactor) String(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	if strings.Contains(s, cutMark) {
		for _, sec := range r.secrets {
			s = maskCutPrefixes(s, sec)
		}
	}
	return secrets.Redact(s, redacted)
}

// cutMark ends every text agentgate cuts short: evidence, quoted values, report cells.
const cutMark = "…"

// minMaskedPrefix is the shortest prefix of a secret masked at a cut: shorter ones would mask
// ordinary words, and show no more of a GitHub token than its public kind (ghs_, ghp_).
const minMaskedPrefix = 4

// maskCutPrefixes replaces by *** the start of secret wherever a cut ended the text in it:
// text cut right after a secret's first characters shows them before "…" (or before a closing
// quote and "…", as input.Quote writes it). ::add-mask:: hides whole values only, and
// redacting whole secrets cannot find a cut one; every cut is meant to come after redaction,
// and this catches one that does not.
func maskCutPrefixes(s, secret string) string {
	if len(secret) <= minMaskedPrefix {
		return s
	}
	var b strings.Builder
	done := 0
	for from := 0; ; {
		i := strings.Index(s[from:], cutMark)
		if i < 0 {
			break
		}
		at := from + i
		from = at + len(cutMark)
		end := at
		if end > done && strings.ContainsRune("\"'`", rune(s[end-1])) {
			end--
		}
		for k := min(len(secret)-1, end-done); k >= minMaskedPrefix; k-- {
			if s[end-k] == secret[0] && s[end-k:end] == secret[:k] {
				b.WriteString(s[done : end-k])
				b.WriteString(redacted)
				done = end
				break
			}
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// result replaces every secret in the texts of res (ids, file names, evidence, notes, the
// baseline's report), in place: the reports cut and escape those texts, and a secret cut in
// two or escaped is not found again in their output.
func (r *redactor) result(res any) {
	r.value(reflect.ValueOf(res), map[uintptr]bool{})
}

// value redacts the strings reachable from v: exported fields, elements, map values and keys.
func (r *redactor) value(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		r.value(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.String && v.CanSet() {
			if s := r.String(e.String()); s != e.String() {
				v.Set(reflect.ValueOf(s).Convert(e.Type()))
			}
			return
		}
		r.value(e, seen)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				r.value(v.Field(i), seen)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.CanSet() && !v.IsNil() {
				if s := r.String(string(v.Bytes())); s != string(v.Bytes()) {
					v.SetBytes([]byte(s))
				}
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			r.value(v.Index(i), seen)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			r.value(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		keys := v.MapKeys()
		for _, k := range keys {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			r.value(e, seen)
			nk := k
			if k.Kind() == reflect.String {
				if s := r.String(k.String()); s != k.String() {
					nk = reflect.ValueOf(s).Convert(k.Type())
					v.SetMapIndex(k, reflect.Value{})
				}
			}
			v.SetMapIndex(nk, e)
		}
	case reflect.String:
		if v.CanSet() {
			if s := r.String(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	}
}

// Error is err with every secret in its text replaced; an error that holds no secret is
// returned as it is, so errors.As still finds its *input.Error (and the annotation its place).
func (r *redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError is an error whose text had a secret; Unwrap keeps its kind and place, Error
// never gives the secret.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// report is a report writer (for writeReportFile) whose output goes through the redactor.
func (r *redactor) report(write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		rw := r.Writer(w)
		if err := write(rw); err != nil {
			return err
		}
		return rw.Flush()
	}
}

// Writer returns w behind the redactor. Secrets hold no line break, so it writes whole
// lines, keeping a partial line until its end arrives or Flush is called.
func (r *redactor) Writer(w io.Writer) *redactWriter { return &redactWriter{r: r, w: w} }

// redactWriter is an io.Writer that redacts line by line.
type redactWriter struct {
	r       *redactor
	w       io.Writer
	mu      sync.Mutex
	pending []byte
}

func (rw *redactWriter) Write(p []byte) (int, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		rw.pending = append(rw.pending, p...)
		return len(p), nil
	}
	lines := p[:i+1]
	if len(rw.pending) > 0 {
		lines = append(rw.pending, lines...)
	}
	if _, err := io.WriteString(rw.w, rw.r.String(string(lines))); err != nil {
		return 0, err
	}
	rw.pending = append(rw.pending[:0], p[i+1:]...)
	return len(p), nil
}

// Flush writes the partial line kept back.
func (rw *redactWriter) Flush() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if len(rw.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(rw.w, rw.r.String(string(rw.pending)))
	rw.pending = rw.pending[:0]
	return err
}
