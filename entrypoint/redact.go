package entrypoint

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// redacted is what a secret is shown as, as the runner shows a masked value.
const redacted = "***"

// tokenShape matches a GitHub token as GitHub writes them: ghp_ (classic personal), gho_
// (OAuth), ghu_ (user-to-server), ghs_ (server-to-server, the Actions GITHUB_TOKEN), ghr_
// (refresh) and github_pat_ (fine-grained). A config value of this shape is a secret whatever
// key it sits under: a token pasted under pa-min must not be quoted by "is not a number".
var tokenShape = regexp.MustCompile(`\b(?:gh[opusr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)

// tokensIn returns the token-shaped strings in s.
func tokensIn(s string) []string { return tokenShape.FindAllString(s, -1) }

// redactor replaces every secret agentgate knows (the github-token, from the input or the
// config file, and token-shaped config values) by *** in what it writes: messages, annotations,
// the job summary, the report files and the PR comment (SPEC §13). A secret is added only
// after it was masked, so the ::add-mask:: command itself goes out whole.
type redactor struct {
	mu      sync.Mutex
	secrets []string // longest first, so a secret holding another goes whole
}

// add records secrets; empty and one-character values are left alone (they would redact
// every other word, and the runner does not mask them either).
func (r *redactor) add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) > 1 && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
}

// any reports whether there is a secret to redact.
func (r *redactor) any() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.secrets) > 0
}

// String is s with every secret replaced by ***.
func (r *redactor) String(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	return s
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
	if len(rw.pending) == 0 && !rw.r.any() {
		return rw.w.Write(p) // nothing to redact (yet): as written
	}
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
