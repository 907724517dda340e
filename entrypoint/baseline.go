package entrypoint

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/compare"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/internal/github/artifact"
	"github.com/agentgate/agentgate/internal/jsonreport"
)

// baselineAuto is the baseline setting that asks for the base branch's last report artifact.
const baselineAuto = "auto"

// resolveBaseline finds what the run is compared with (docs/design.md#comparison): nil when no baseline was
// asked for; otherwise a report, or the one-line note of why there is none. `auto` finding
// nothing usable is a note, as is a well-formed report of another schema version or profile:
// there is nothing to compare with, and the verdict and exit code are as they would be
// without a baseline. A path that cannot be read, or that holds no agentgate report (a
// traces file, an empty or truncated file, malformed JSON), is an error (docs/design.md#honest-words): a typo
// must not switch the regression gates off.
func resolveBaseline(ctx context.Context, cfg *gateConfig, act *actionEnv) (*gate.Baseline, error) {
	switch cfg.baseline {
	case "":
		return nil, nil
	case baselineAuto:
		return act.fetchBaseline(ctx, cfg), nil
	}
	b, err := jsonreport.ReadBaselineFile(cfg.baseline)
	var u *compare.Unusable
	switch {
	case errors.As(err, &u):
		return noBaseline("%s", u.Reason), nil
	case err != nil:
		return nil, badBaseline(cfg, err, act != nil)
	}
	return &gate.Baseline{Report: b}, nil
}

// badBaseline is the error for a baseline path that cannot be read or holds no agentgate
// report, naming the flag, input or config line it came from. A file that looks like
// another kind of input gets the hint of the setting that takes it (as a flag, or under
// Actions as an input); any other the reminder of what a baseline is.
func badBaseline(cfg *gateConfig, err error, underActions bool) error {
	msg := err.Error()
	var ie *input.Error
	if errors.As(err, &ie) && ie.LooksLike != "" {
		hinted := *ie
		hinted.Hint = input.Hint(ie.LooksLike, !underActions || strings.HasPrefix(cfg.baselineSource, "--"))
		msg = hinted.Error()
	} else {
		msg += "; a baseline given by path must be an agentgate JSON report (the base branch's, written with --json), or `auto` to look for its artifact"
	}
	return &gate.UsageError{Msg: cfg.baselineSource + ": " + msg}
}

// readBaseline reads a baseline report fetched for `auto`; a problem with its content is the
// note (docs/design.md#comparison: whatever the artifact holds, `auto` finding nothing usable is no failure).
func readBaseline(data []byte, name string) *gate.Baseline {
	b, err := jsonreport.ReadBaselineBytes(data, name)
	var u *compare.Unusable
	switch {
	case errors.As(err, &u):
		return noBaseline("%s", u.Reason)
	case err != nil:
		return noBaseline("baseline %v", err)
	}
	return &gate.Baseline{Report: b}
}

// noBaseline is a baseline that could not be had, with its note.
func noBaseline(format string, args ...any) *gate.Baseline {
	return &gate.Baseline{Note: fmt.Sprintf(format, args...) + ": not compared"}
}

// fetchBaseline is `baseline: auto` (docs/reference.md, "Which baseline"): the artifact named
// baseline-artifact of the pull request's merge base with its base branch, else of the
// nearest commit on the merge base's first-parent history that has one, else the newest on
// the branch; only push, schedule and workflow_dispatch runs of this repository count. It is
// downloaded from storage without the token. A nil *actionEnv is a run outside Actions,
// which has no artifacts to look in.
func (e *actionEnv) fetchBaseline(ctx context.Context, cfg *gateConfig) *gate.Baseline {
	if e == nil {
		return noBaseline("baseline auto: the base branch's report artifact is looked for under GitHub Actions only; give a report's path to compare here")
	}
	if cfg.token == "" {
		return noBaseline("baseline auto: no github-token to list the artifacts with")
	}
	e.readPull(ctx, cfg)
	sides, ok, err := e.trigger().Sides()
	switch {
	case err != nil:
		return noBaseline("baseline auto: %v", err)
	case !ok:
		return noBaseline("baseline auto: a %s event has no base branch to compare with", e.trigger().Name)
	}
	branch := sides.Branch
	owner, repo, found := strings.Cut(e.getenv("GITHUB_REPOSITORY"), "/")
	if !found {
		return noBaseline("baseline auto: GITHUB_REPOSITORY %q is not owner/name", e.getenv("GITHUB_REPOSITORY"))
	}
	client, err := api.NewClient(cfg.token, e.getenv("GITHUB_API_URL"), nil)
	if err != nil {
		return noBaseline("baseline auto: %v", err)
	}
	q := artifact.Query{Owner: owner, Repo: repo, Name: cfg.baselineArtifact, Branch: branch, Logf: e.logf}
	switch {
	case sides.Queue:
		q.MergeBase = sides.Base // the queue's head is built on its base commit
	case sides.Base != "" && sides.Head != "":
		if q.MergeBase, err = artifact.MergeBase(ctx, client, owner, repo, sides.Base, sides.Head); err != nil {
			e.logf("agentgate: baseline: no merge base, so the newest artifact on %s is taken: %v", branch, e.red.Error(err))
		}
	default:
		e.logf("agentgate: baseline: the event names no head and base commit, so the newest artifact on %s is taken", branch)
	}
	// The storage URL is signed: it needs no credentials and must get none.
	storage := &http.Client{Timeout: 2 * time.Minute}
	got, err := artifact.Fetch(ctx, client, storage, q)
	switch {
	case errors.Is(err, artifact.ErrNotFound):
		return noBaseline("baseline auto: no unexpired artifact %q from a push, schedule or workflow_dispatch run on %s yet (the push-to-main job uploads it)", cfg.baselineArtifact, branch)
	case isForbidden(err):
		return noBaseline("baseline auto: the token cannot read this repository's artifacts (give the job `actions: read`)")
	case err != nil:
		return noBaseline("baseline auto: %v", err)
	}
	e.logf("agentgate: baseline: artifact %q (id %d) of run %d on %s, commit %s: %s", cfg.baselineArtifact, got.ArtifactID, got.RunID, branch, got.HeadSHA, got.How)
	b := readBaseline(got.Report, fmt.Sprintf("artifact %s (run %d) %s", cfg.baselineArtifact, got.RunID, got.Entry))
	b.Chosen = &gate.BaselineChosen{Branch: branch, SHA: got.HeadSHA, How: got.How}
	return b
}

// isForbidden says GitHub answered 403: the token lacks actions: read.
func isForbidden(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}
