package comment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// Kinds of failure, matched with errors.Is on the error Upsert returns.
var (
	// ErrNoPermission: GitHub answered 403 to reading or writing the pull
	// request's comments. The usual cause is the read-only GITHUB_TOKEN of a
	// pull request from a fork, or a workflow whose permissions lack
	// pull-requests: write. The caller should keep the verdict, write the
	// job summary and annotations, and print Hint().
	ErrNoPermission = errors.New("the token may not read or write this pull request's comments")
	// ErrNotFound: GitHub answered 404 (or 410). That is not a read-only
	// token, which may read and is refused writes with 403: the pull
	// request or repository does not exist or is not visible to the token,
	// or GITHUB_API_URL is not this repository's API.
	ErrNotFound = errors.New("GitHub found no such pull request or repository for this token (check the pull request number, the token's access and GITHUB_API_URL)")
	// ErrUnauthorized: GitHub answered 401: the token is missing, malformed,
	// expired or revoked.
	ErrUnauthorized = errors.New("GitHub rejected the token (check the github-token input)")
	// ErrValidation: GitHub answered 422 and refused the comment.
	ErrValidation = errors.New("GitHub refused the comment as invalid")
	// ErrRateLimited: the primary (hourly) rate limit is spent, or GitHub
	// asked to wait longer than the retry policy allows.
	ErrRateLimited = errors.New("GitHub API rate limit reached")
	// ErrUnavailable: GitHub kept answering 429 or 5xx, or the connection
	// kept failing, until the retry policy gave up.
	ErrUnavailable = errors.New("GitHub did not answer successfully")
)

// APIError describes one failed GitHub operation. It never holds the token.
type APIError struct {
	// Op names the operation, e.g. "create comment on owner/repo#12".
	Op string
	// Status is the HTTP status of the last answer, 0 when none came.
	Status int
	// Message is GitHub's message, with the field errors of a 422.
	Message string
	// Kind is one of the Err* values, or nil for an unexpected failure.
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
	kind   error         // the Err* kind when giving up
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
		v.kind, v.reset = ErrRateLimited, rl.Rate.Reset.Time
		return v
	case errors.As(err, &ab):
		v.message = ab.Message
		v.kind, v.retry, v.secondary, v.strict = ErrRateLimited, true, true, true
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
		v.kind, v.retry, v.ambiguous = ErrUnavailable, true, true
		return v
	}
	retryAfter, hasRetryAfter := parseRetryAfter(hr.Header.Get("Retry-After"))
	switch s := hr.StatusCode; {
	case s == http.StatusUnauthorized:
		v.kind = ErrUnauthorized
	case s == http.StatusTooManyRequests || (s == http.StatusForbidden && hasRetryAfter):
		// A rate limit answered with 429, or a secondary limit with 403 that
		// go-github did not recognise. GitHub's rules: honour
		// Retry-After; with X-RateLimit-Remaining: 0 the primary limit is
		// spent until X-RateLimit-Reset; otherwise wait at least a minute.
		v.kind = ErrRateLimited
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
		v.kind = ErrNoPermission
	case s == http.StatusNotFound, s == http.StatusGone:
		v.kind = ErrNotFound
	case s == http.StatusUnprocessableEntity:
		v.kind = ErrValidation
	case s >= 500:
		v.kind, v.retry, v.ambiguous = ErrUnavailable, true, true
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
