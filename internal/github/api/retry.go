package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// Kinds are one service's errors for the kinds of failure, which Do puts in APIError.Kind so
// that a caller matches them with errors.Is. Each service words its own (the comment package's
// ErrNoPermission speaks of a pull request's comments, the checks package's of check runs).
type Kinds struct {
	// NoPermission: 403 without a rate limit (a read-only token, a missing permission).
	NoPermission error
	// NotFound: 404 or 410.
	NotFound error
	// Unauthorized: 401.
	Unauthorized error
	// Validation: 422.
	Validation error
	// RateLimited: the primary limit is spent, or GitHub asked to wait longer than the policy
	// allows.
	RateLimited error
	// Unavailable: 429 or 5xx, or no answer, until the policy gave up.
	Unavailable error
}

// The kinds of failure that every service words alike, since they say nothing of what was
// asked: the token refused, the rate limit spent, GitHub not answering.
var (
	// ErrUnauthorized: GitHub answered 401: the token is missing, malformed, expired or
	// revoked.
	ErrUnauthorized = errors.New("GitHub rejected the token (check the github-token input)")
	// ErrRateLimited: the primary (hourly) rate limit is spent, or GitHub asked to wait
	// longer than the retry policy allows.
	ErrRateLimited = errors.New("GitHub API rate limit reached")
	// ErrUnavailable: GitHub kept answering 429 or 5xx, or the connection kept failing,
	// until the retry policy gave up.
	ErrUnavailable = errors.New("GitHub did not answer successfully")
)

// ServiceKinds are the Kinds of a service that words its own refusals (noPermission,
// notFound, validation: what it may not do, what it did not find, what it refused) and shares
// the other kinds.
func ServiceKinds(noPermission, notFound, validation error) Kinds {
	return Kinds{NoPermission: noPermission, NotFound: notFound, Unauthorized: ErrUnauthorized,
		Validation: validation, RateLimited: ErrRateLimited, Unavailable: ErrUnavailable}
}

// Retrier runs a service's GitHub calls with bounded retries of GitHub's transient answers
// and classifies its failures as *APIError. It is not safe for concurrent use: after a
// secondary rate limit it replaces Client (see Do).
type Retrier struct {
	// Client is the go-github client the calls must use (read it inside each call: Do may
	// replace it).
	Client *github.Client
	Policy RetryPolicy
	Kinds  Kinds
	// Prefix starts each log line ("comment", "checks").
	Prefix string
	// Logf, if set, receives one line per retry. It never receives the token.
	Logf func(format string, args ...any)
}

// NewRetrier returns a Retrier with p's defaults filled in.
func NewRetrier(client *github.Client, p RetryPolicy, kinds Kinds, prefix string, logf func(string, ...any)) *Retrier {
	return &Retrier{Client: client, Policy: p.withDefaults(), Kinds: kinds, Prefix: prefix, Logf: logf}
}

// Attempt is what a failed attempt said, handed to the next one.
type Attempt struct {
	// Ambiguous: GitHub may have carried out a write although the answer was an error (5xx,
	// dropped connection), so a create must look before it posts again.
	Ambiguous bool
	v         verdict
}

// Do runs one operation with the retry policy. call receives the previous failed attempt (nil
// on the first). A failure is an *APIError whose Kind is one of r.Kinds (or nil for an
// unexpected one), or the context's error.
func (r *Retrier) Do(ctx context.Context, op string, call func(ctx context.Context, prev *Attempt) (*github.Response, error)) error {
	p := r.Policy
	var prev *Attempt
	for attempt := 1; ; attempt++ {
		resp, err := call(ctx, prev)
		if err == nil {
			return nil
		}
		if resp != nil {
			if tl := overBound(resp.Response); tl != nil {
				err = tl
			}
		}
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			return err // from a nested operation, already classified
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: %w", op, ctxErr)
		}
		v := classify(resp, err)
		fail := &APIError{Op: op, Status: v.status, Message: v.message, Kind: r.kind(v.kind), Attempts: attempt, Reset: v.reset, Err: scrub(err)}
		if !v.retry {
			return fail
		}
		if attempt >= p.MaxAttempts {
			if v.kind == kindRateLimited {
				fail.Kind = r.Kinds.RateLimited
			} else {
				fail.Kind = r.Kinds.Unavailable
			}
			return fail
		}
		wait := v.wait
		if wait == 0 && !v.strict {
			wait = p.BaseDelay << (attempt - 1)
		}
		if wait > p.MaxDelay {
			if v.strict {
				fail.Kind = r.Kinds.RateLimited
				fail.Message = strings.TrimSpace(fmt.Sprintf("%s (GitHub asked to wait %s, longer than the %s this step waits)", fail.Message, wait, p.MaxDelay))
				return fail
			}
			wait = p.MaxDelay
		}
		what := fmt.Sprintf("%d %s", v.status, http.StatusText(v.status))
		if v.status == 0 {
			what = "no answer"
		}
		r.logf("%s: %s: GitHub gave %s; retrying in %s (attempt %d of %d)", r.Prefix, op, what, wait, attempt+1, p.MaxAttempts)
		if err := p.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: waiting to retry: %w", op, err)
		}
		if v.secondary {
			r.forgetSecondaryLimit()
		}
		prev = &Attempt{Ambiguous: v.ambiguous, v: v}
	}
}

func (r *Retrier) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

func (r *Retrier) kind(k failKind) error {
	switch k {
	case kindNoPermission:
		return r.Kinds.NoPermission
	case kindNotFound:
		return r.Kinds.NotFound
	case kindUnauthorized:
		return r.Kinds.Unauthorized
	case kindValidation:
		return r.Kinds.Validation
	case kindRateLimited:
		return r.Kinds.RateLimited
	case kindUnavailable:
		return r.Kinds.Unavailable
	}
	return nil
}

// forgetSecondaryLimit replaces the client with a copy that has no memory of
// the secondary rate limit. go-github refuses, without sending anything,
// every request until a Retry-After has passed by the wall clock; the retry
// loop has already waited it out through RetryPolicy.Sleep, and in tests
// that Sleep does not really sleep.
func (r *Retrier) forgetSecondaryLimit() {
	old := r.Client
	c := github.NewClient(old.Client())
	base := *old.BaseURL
	upload := *old.UploadURL
	c.BaseURL, c.UploadURL, c.UserAgent = &base, &upload, old.UserAgent
	r.Client = c
}

// scrub drops the request URL's query from transport errors; go-github
// already strips secrets from the URLs it reports, and the token itself
// travels only in a header that no error contains.
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery, u.User = "", nil
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}

// failKind is a kind of failure, before it is named by a service's Kinds.
type failKind uint8

const (
	kindNone failKind = iota
	kindNoPermission
	kindNotFound
	kindUnauthorized
	kindValidation
	kindRateLimited
	kindUnavailable
)

// APIError describes one failed GitHub operation. It never holds the token.
type APIError struct {
	// Op names the operation, e.g. "create comment on owner/repo#12".
	Op string
	// Status is the HTTP status of the last answer, 0 when none came.
	Status int
	// Message is GitHub's message, with the field errors of a 422.
	Message string
	// Kind is one of the service's Kinds, or nil for an unexpected failure.
	Kind error
	// Attempts is how many requests were made for the operation.
	Attempts int
	// Reset is when the primary rate limit resets (zero if unknown).
	Reset time.Time
	// Err is the underlying go-github or transport error.
	Err error
}

// Error says what failed, what GitHub answered and what it means.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "GitHub answered %d", e.Status)
		if e.Message != "" {
			fmt.Fprintf(&b, " %q", e.Message)
		}
	} else if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	switch {
	case e.Kind != nil:
		b.WriteString(": ")
		b.WriteString(e.Kind.Error())
	case e.Status != 0 && e.Err != nil:
		// An unexpected failure (say, an answer that is not JSON): the
		// underlying error has the detail; go-github's texts hold the
		// method and URL, never the token.
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if !e.Reset.IsZero() {
		fmt.Fprintf(&b, "; it resets at %s (in %s)", e.Reset.UTC().Format(time.RFC3339),
			time.Until(e.Reset).Round(time.Second))
	}
	return b.String()
}

// Unwrap exposes Kind (for errors.Is) and the underlying error (for
// errors.As, e.g. *github.ErrorResponse).
func (e *APIError) Unwrap() []error {
	var out []error
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// RetryPolicy bounds how GitHub's transient failures are retried: secondary
// rate limits (403 or 429 with Retry-After, or go-github's
// AbuseRateLimitError), 429, 5xx and dropped connections.
type RetryPolicy struct {
	// MaxAttempts is the number of requests made for one operation,
	// the first included (default 4).
	MaxAttempts int
	// BaseDelay is the first backoff wait, doubled on each retry
	// (default 1s).
	BaseDelay time.Duration
	// MaxDelay caps one wait (default 60s). When GitHub asks, with
	// Retry-After, for a longer wait than this, the operation fails with
	// ErrRateLimited instead of retrying early, which GitHub punishes.
	MaxDelay time.Duration
	// Sleep waits d or until ctx ends; tests inject a recorder so nothing
	// really sleeps (default: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 60 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// secondaryMinWait is what GitHub's documentation says to wait after a
// secondary rate limit that names no time: at least one minute.
const secondaryMinWait = time.Minute

// verdict is how one failed attempt is handled.
type verdict struct {
	kind   failKind      // the kind when giving up
	retry  bool          // worth another attempt
	wait   time.Duration // wait GitHub asked for (0: use backoff)
	strict bool          // wait must be honoured, not shortened
	// ambiguous: GitHub may have carried out a write although the answer
	// was an error (5xx, dropped connection), so a create must look
	// before it posts again.
	ambiguous bool
	// secondary: go-github remembers a secondary limit and refuses
	// requests until it passes by its own clock; after waiting it out with
	// Sleep, the client must be told to forget it.
	secondary bool
	reset     time.Time
	status    int
	message   string
}

// classify decides what a failed go-github call means.
func classify(resp *github.Response, err error) verdict {
	v := verdict{}
	var hr *http.Response
	if resp != nil {
		hr = resp.Response
	}
	if hr != nil {
		v.status = hr.StatusCode
	}
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	switch {
	case errors.As(err, &rl):
		v.message = rl.Message
		if rl.Response != nil {
			v.status = rl.Response.StatusCode
		}
		v.kind, v.reset = kindRateLimited, rl.Rate.Reset.Time
		return v
	case errors.As(err, &ab):
		v.message = ab.Message
		v.kind, v.retry, v.secondary, v.strict = kindRateLimited, true, true, true
		v.wait = secondaryMinWait
		if ab.Response != nil {
			v.status = ab.Response.StatusCode
			// Not ab.RetryAfter: without Retry-After, go-github takes
			// X-RateLimit-Reset, which GitHub sends on every answer for
			// the primary limit (up to an hour away, or already past).
			// GitHub's rule: Retry-After if present, else one minute.
			if d, ok := parseRetryAfter(ab.Response.Header.Get("Retry-After")); ok {
				v.wait = d
			} else if len(ab.Response.Header) == 0 && ab.RetryAfter != nil {
				// go-github's own refusal before sending: it
				// remembered a Retry-After and says how long is left.
				v.wait = max(*ab.RetryAfter, 0)
			}
		}
		return v
	case errors.As(err, &er):
		v.message = describe(er)
	}
	if hr == nil {
		// No HTTP answer: connection refused, reset or timed out. The
		// request may or may not have reached GitHub.
		v.kind, v.retry, v.ambiguous = kindUnavailable, true, true
		return v
	}
	retryAfter, hasRetryAfter := parseRetryAfter(hr.Header.Get("Retry-After"))
	switch s := hr.StatusCode; {
	case s == http.StatusUnauthorized:
		v.kind = kindUnauthorized
	case s == http.StatusTooManyRequests || (s == http.StatusForbidden && hasRetryAfter):
		// A rate limit answered with 429, or a secondary limit with 403 that
		// go-github did not recognise. GitHub's rules: honour
		// Retry-After; with X-RateLimit-Remaining: 0 the primary limit is
		// spent until X-RateLimit-Reset; otherwise wait at least a minute.
		v.kind = kindRateLimited
		switch {
		case hasRetryAfter:
			v.retry, v.secondary, v.wait, v.strict = true, true, retryAfter, true
		case hr.Header.Get("X-RateLimit-Remaining") == "0":
			if sec, err := strconv.ParseInt(hr.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				v.reset = time.Unix(sec, 0)
			}
		default:
			v.retry, v.secondary, v.wait, v.strict = true, true, secondaryMinWait, true
		}
	case s == http.StatusForbidden:
		v.kind = kindNoPermission
	case s == http.StatusNotFound, s == http.StatusGone:
		v.kind = kindNotFound
	case s == http.StatusUnprocessableEntity:
		v.kind = kindValidation
	case s >= 500:
		v.kind, v.retry, v.ambiguous = kindUnavailable, true, true
		if hasRetryAfter {
			v.wait, v.strict = retryAfter, true
		}
	}
	return v
}

// describe renders GitHub's message with the field errors of a 422.
func describe(er *github.ErrorResponse) string {
	msg := er.Message
	var parts []string
	for _, fe := range er.Errors {
		p := fe.Message
		if p == "" {
			p = strings.TrimSpace(fe.Field + " " + fe.Code)
		}
		if fe.Field != "" && fe.Message != "" {
			p = fe.Field + ": " + fe.Message
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) > 0 {
		msg += " (" + strings.Join(parts, "; ") + ")"
	}
	return msg
}

// parseRetryAfter reads Retry-After as seconds or as an HTTP date.
func parseRetryAfter(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(max(s, 0)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}
