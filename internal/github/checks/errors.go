package checks

import (
	"errors"

	"github.com/agentgate/agentgate/internal/github/api"
)

// Kinds of failure, matched with errors.Is on the error Publish returns.
var (
	// ErrNoPermission: GitHub answered 403 to creating or updating the check run. The usual
	// cause is a job without `permissions: checks: write` (a job that lists any permission
	// gets none it does not list), or the read-only GITHUB_TOKEN of a pull request from a
	// fork. The caller keeps the verdict and says how to grant it (Hint).
	ErrNoPermission = errors.New("the token may not create check runs (it needs checks: write)")
	// ErrNotFound: GitHub answered 404 (or 410): the repository is not visible to the token,
	// or GITHUB_API_URL is not this repository's API.
	ErrNotFound = errors.New("GitHub found no such repository or check run for this token (check the token's access and GITHUB_API_URL)")
	// ErrUnauthorized: GitHub answered 401 (api.ErrUnauthorized, shared by every service).
	ErrUnauthorized = api.ErrUnauthorized
	// ErrValidation: GitHub answered 422 and refused the check run (an unknown head commit
	// among others).
	ErrValidation = errors.New("GitHub refused the check run as invalid")
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
