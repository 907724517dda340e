package comment

import (
	"errors"

	"github.com/agentgate/agentgate/internal/github/api"
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

// APIError describes one failed GitHub operation (its Kind is one of the Err* values above).
// It never holds the token.
type APIError = api.APIError

// RetryPolicy bounds how GitHub's transient failures are retried (see api.RetryPolicy).
type RetryPolicy = api.RetryPolicy

// kinds names this package's errors for the retrier.
var kinds = api.Kinds{
	NoPermission: ErrNoPermission,
	NotFound:     ErrNotFound,
	Unauthorized: ErrUnauthorized,
	Validation:   ErrValidation,
	RateLimited:  ErrRateLimited,
	Unavailable:  ErrUnavailable,
}
