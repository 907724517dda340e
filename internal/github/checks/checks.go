// Package checks publishes agentgate's verdict as a check run of a stable name on the commit
// a run gated (docs/design.md#defaults), so that branch protection can require that name: the conclusion,
// the report as its summary and every finding as an annotation, sent 50 at a time (GitHub's
// limit per request: the first 50 with the create, the rest with updates).
//
// It follows the comment package's design: one method with GitHub behind it, typed failures
// (ErrNoPermission above all, for a job without `checks: write` or the read-only token of a
// fork's pull request) so the caller can carry on without it, and the bounded retries of
// GitHub's transient answers that every agentgate call shares (api.Retrier).
package checks

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-github/v66/github"

	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/internal/github/comment"
)

// GitHub's limits on a check run's output.
const (
	// AnnotationsPerRequest is the most annotations one create or update may carry.
	AnnotationsPerRequest = 50
	// MaxSummaryChars is the longest output.summary GitHub accepts.
	MaxSummaryChars = 65535
	// maxTitleChars is the longest annotation title GitHub accepts.
	maxTitleChars = 255
	// maxMessageBytes is the largest annotation message GitHub accepts (64 KB).
	maxMessageBytes = 64 << 10
)

// MaxAnnotations bounds the annotations of one check run: 20 requests of 50. GitHub sets no
// total, but a suite of a million WARN traces must not become twenty thousand requests; the
// findings past it are counted in Outcome.Dropped, and the summary has them.
const MaxAnnotations = 20 * AnnotationsPerRequest

// Annotation levels (annotation_level).
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Conclusions a Run may have.
const (
	ConclusionSuccess = "success"
	ConclusionNeutral = "neutral"
	ConclusionFailure = "failure"
)

// summaryNote ends a summary that was cut to fit MaxSummaryChars.
const summaryNote = "\n\n> [!NOTE]\n> This report was cut to fit GitHub's limit of 65,535 characters per check run summary. " +
	"The job summary and the JSON report (`report-json` output) have it in full.\n"

// Annotation is one finding at a place in the repository.
type Annotation struct {
	// Path is the file, relative to the repository's root with forward slashes (see
	// RepoPath). An annotation without one is not sent.
	Path string
	// Line is the 1-based line; 0 (unknown) annotates line 1.
	Line int
	// Level is LevelFailure, LevelWarning or LevelNotice.
	Level string
	// Title and Message are plain text; Message must not be empty.
	Title, Message string
}

// Run is a completed check run to publish.
type Run struct {
	// Name is the check's name, the one branch protection requires.
	Name string
	// HeadSHA is the commit the run is about (40 or 64 hexadecimal digits).
	HeadSHA string
	// Conclusion is ConclusionSuccess, ConclusionNeutral or ConclusionFailure.
	Conclusion string
	// DetailsURL, if set, is where the check's "Details" link leads (the job's run).
	DetailsURL string
	// Title is output.title: the verdict in one line.
	Title string
	// Summary is output.summary, markdown; a longer one is cut to MaxSummaryChars.
	Summary string
	// Annotations are sent in batches of AnnotationsPerRequest, at most MaxAnnotations.
	Annotations []Annotation
}

// Outcome says what Publish did.
type Outcome struct {
	// ID and URL are the check run's id and web address (html_url).
	ID  int64
	URL string
	// Requests is how many writes were made (the create and each update), retries aside.
	Requests int
	// Annotated is how many annotations were sent; Dropped how many were not (no path, or
	// past MaxAnnotations).
	Annotated, Dropped int
	// Truncated is true when the summary had to be cut.
	Truncated bool
}

// Service publishes a check run.
type Service interface {
	Publish(ctx context.Context, run Run) (Outcome, error)
}

// Options configures GitHub.
type Options struct {
	// Retry bounds retries of transient failures.
	Retry RetryPolicy
	// Logf, if set, receives one line per retry. It never receives the token.
	Logf func(format string, args ...any)
}

// GitHub is the Service backed by GitHub's REST API (POST /repos/{owner}/{repo}/check-runs,
// PATCH …/check-runs/{id}). It is not safe for concurrent use.
type GitHub struct {
	r           *api.Retrier
	owner, repo string
}

var _ Service = (*GitHub)(nil)

// NewGitHub returns a Service creating check runs in owner/repo through client (see
// api.NewClient).
func NewGitHub(client *github.Client, owner, repo string, opts Options) *GitHub {
	return &GitHub{r: api.NewRetrier(client, opts.Retry, kinds, "checks", opts.Logf), owner: owner, repo: repo}
}

var commitID = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Publish creates run as a completed check run carrying its conclusion and the first
// AnnotationsPerRequest annotations, then adds the others with one update per batch. The
// conclusion is set by the create, so a failed update leaves a check run that is complete and
// right, only short of annotations.
//
// Errors match ErrNoPermission, ErrNotFound, ErrUnauthorized, ErrValidation, ErrRateLimited
// or ErrUnavailable with errors.Is; the Outcome says what was done before one.
func (g *GitHub) Publish(ctx context.Context, run Run) (Outcome, error) {
	var out Outcome
	name := oneLine(run.Name)
	switch {
	case g.r.Client == nil || g.owner == "" || g.repo == "":
		return out, fmt.Errorf("checks: need a client, owner and repository (got %q/%q)", g.owner, g.repo)
	case name == "":
		return out, fmt.Errorf("checks: the check run needs a name")
	case !commitID.MatchString(run.HeadSHA):
		return out, fmt.Errorf("checks: head commit %q is not a commit id", run.HeadSHA)
	}
	switch run.Conclusion {
	case ConclusionSuccess, ConclusionNeutral, ConclusionFailure:
	default:
		return out, fmt.Errorf("checks: conclusion %q: want success, neutral or failure", run.Conclusion)
	}
	summary := comment.FitWith(run.Summary, MaxSummaryChars, summaryNote)
	out.Truncated = summary != run.Summary
	title := cut(oneLine(run.Title), maxTitleChars)
	if title == "" {
		title = name
	}
	anns := make([]*github.CheckRunAnnotation, 0, min(len(run.Annotations), MaxAnnotations))
	for _, a := range run.Annotations {
		if len(anns) == MaxAnnotations {
			break
		}
		if ca, ok := annotation(a); ok {
			anns = append(anns, ca)
		}
	}
	out.Dropped = len(run.Annotations) - len(anns)

	first := anns[:min(len(anns), AnnotationsPerRequest)]
	opts := github.CreateCheckRunOptions{
		Name:       name,
		HeadSHA:    run.HeadSHA,
		Status:     github.String("completed"),
		Conclusion: github.String(run.Conclusion),
		Output: &github.CheckRunOutput{
			Title:       github.String(title),
			Summary:     github.String(summary),
			Annotations: first,
		},
	}
	if run.DetailsURL != "" {
		opts.DetailsURL = github.String(run.DetailsURL)
	}
	var cr *github.CheckRun
	err := g.r.Do(ctx, fmt.Sprintf("create check run %q on %s/%s@%s", name, g.owner, g.repo, short(run.HeadSHA)), func(ctx context.Context, _ *api.Attempt) (*github.Response, error) {
		var resp *github.Response
		var err error
		cr, resp, err = g.r.Client.Checks.CreateCheckRun(ctx, g.owner, g.repo, opts)
		return resp, err
	})
	if err != nil {
		return out, err
	}
	out.Requests, out.Annotated = 1, len(first)
	out.ID, out.URL = cr.GetID(), cr.GetHTMLURL()

	for rest := anns[len(first):]; len(rest) > 0; {
		batch := rest[:min(len(rest), AnnotationsPerRequest)]
		rest = rest[len(batch):]
		upd := github.UpdateCheckRunOptions{
			Name: name,
			Output: &github.CheckRunOutput{
				Title:       github.String(title),
				Summary:     github.String(summary),
				Annotations: batch,
			},
		}
		// PATCH appends the annotations; a retry after an ambiguous failure may add a batch
		// twice, which shows a finding twice and loses nothing.
		err := g.r.Do(ctx, fmt.Sprintf("add annotations %d-%d to check run %d", out.Annotated+1, out.Annotated+len(batch), out.ID), func(ctx context.Context, _ *api.Attempt) (*github.Response, error) {
			_, resp, err := g.r.Client.Checks.UpdateCheckRun(ctx, g.owner, g.repo, out.ID, upd)
			return resp, err
		})
		if err != nil {
			out.Dropped += len(batch) + len(rest)
			return out, err
		}
		out.Requests++
		out.Annotated += len(batch)
	}
	return out, nil
}

// annotation is a's GitHub form within GitHub's limits, or false when it has no path.
func annotation(a Annotation) (*github.CheckRunAnnotation, bool) {
	p := RepoPath(a.Path, "")
	if p == "" {
		return nil, false
	}
	level := a.Level
	switch level {
	case LevelFailure, LevelWarning, LevelNotice:
	default:
		level = LevelFailure
	}
	line := max(a.Line, 1)
	msg := strings.ToValidUTF8(a.Message, "\uFFFD")
	if len(msg) > maxMessageBytes {
		msg = truncateBytes(msg, maxMessageBytes)
	}
	if strings.TrimSpace(msg) == "" {
		msg = cmp.Or(oneLine(a.Title), "agentgate finding")
	}
	ca := &github.CheckRunAnnotation{
		Path:            github.String(p),
		StartLine:       github.Int(line),
		EndLine:         github.Int(line),
		AnnotationLevel: github.String(level),
		Message:         github.String(msg),
	}
	if t := cut(oneLine(a.Title), maxTitleChars); t != "" {
		ca.Title = github.String(t)
	}
	return ca, true
}

// RepoPath returns file as a path relative to the repository's root, with forward slashes,
// or "" when it is not one: file relative to the workspace (the repository's checkout), or
// absolute inside workspace. A path that leaves the root ("../x", an absolute path elsewhere),
// or holds a control character, is not a place in the repository.
func RepoPath(file, workspace string) string {
	if file == "" || !utf8.ValidString(file) || strings.IndexFunc(file, unicode.IsControl) >= 0 {
		return ""
	}
	if strings.HasPrefix(file, "/") {
		ws := path.Clean("/" + strings.TrimPrefix(workspace, "/"))
		if workspace == "" || ws == "/" {
			return ""
		}
		rest, ok := strings.CutPrefix(path.Clean(file), ws+"/")
		if !ok {
			return ""
		}
		file = rest
	}
	p := path.Clean(file)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// oneLine is s with invalid UTF-8 replaced and every run of white space or control
// characters made one space, trimmed.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
}

// cut keeps at most n characters (UTF-16 units, as comment.Chars counts) of s, ending in …
// when it cut.
func cut(s string, n int) string {
	if comment.Chars(s) <= n {
		return s
	}
	used := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if used+w > n-1 {
			return s[:i] + "…"
		}
		used += w
	}
	return s
}

// truncateBytes keeps at most n bytes of s, at a character boundary.
func truncateBytes(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func short(sha string) string { return sha[:min(len(sha), 12)] }
