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
	// ErrUnauthorized: GitHub answered 401 (api.ErrUnauthorized, shared by every service).
	ErrUnauthorized = api.ErrUnauthorized
	// ErrValidation: GitHub answered 422 and refused the comment.
	ErrValidation = errors.New("GitHub refused the comment as invalid")
	// ErrRateLimited: the rate limit is spent (api.ErrRateLimited, shared by every service).
	ErrRateLimited = api.ErrRateLimited
	// ErrUnavailable: GitHub kept failing until the retry policy gave up (api.ErrUnavailable,
	// shared by every service).
	ErrUnavailable = api.ErrUnavailable
)

// APIError describes one failed GitHub operation (its Kind is one of the Err* values above).
// It never holds the token.
type APIError = api.APIError

// RetryPolicy bounds how GitHub's transient failures are retried (see api.RetryPolicy).
type RetryPolicy = api.RetryPolicy

// kinds names this package's errors for the retrier.
var kinds = api.ServiceKinds(ErrNoPermission, ErrNotFound, ErrValidation)
