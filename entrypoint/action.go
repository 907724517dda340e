package entrypoint

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/agentgate/agentgate/gate"
	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/verdict"
	"github.com/agentgate/agentgate/internal/github/actions"
	"github.com/agentgate/agentgate/internal/github/api"
	"github.com/agentgate/agentgate/internal/github/checks"
	"github.com/agentgate/agentgate/internal/github/comment"
	"github.com/agentgate/agentgate/internal/github/event"
	"github.com/agentgate/agentgate/internal/jsonreport"
	"github.com/agentgate/agentgate/report"
)

// defaultReportJSON is where the action keeps the JSON report when --json is not given: inside
// the workspace, so later steps (which run outside the container) can read it.
var defaultReportJSON = filepath.Join(".agentgate", "report.json")

// actionEnv is the GitHub side of a run under Actions: inputs, outputs, job summary,
// annotations and the PR comment. A nil *actionEnv means "not under Actions".
type actionEnv struct {
	a *githubactions.Action
	// masks writes the ::add-mask:: commands, past red: a mask of a token of a known shape
	// (ghs_…) must go out whole for the runner to hide the token.
	masks  *githubactions.Action
	getenv func(string) string
	log    io.Writer
	red    *redactor
	masked []string
	ev     *event.Event // read on first use: see trigger
	// pullRead is set once the pull request of an issue_comment was asked for (see readPull).
	pullRead bool
	// ctx and cfg are the run's once its configuration is read (see configured): what failRun
	// needs to post the check run of a run that could not be evaluated.
	ctx context.Context
	cfg *gateConfig
}

// configured records the run's configuration for failRun. A nil *actionEnv ignores it.
func (e *actionEnv) configured(ctx context.Context, cfg *gateConfig) {
	if e != nil {
		e.ctx, e.cfg = ctx, cfg
	}
}

// newActionEnv returns the Actions side of a run logging to log. When log is the guard that
// run puts around stdout, go-githubactions writes its commands through the guard's command
// channel and everything else (the log lines, which quote untrusted text) is neutralised.
// Never call a.Infof: it writes its text unescaped to the command channel; log to e.log.
// Commands go through red too, so every command (an annotation, a warning) shows ***, but for
// the masks, which go straight to the command channel.
func newActionEnv(getenv func(string) string, log io.Writer, red *redactor) *actionEnv {
	var cmds io.Writer = log
	if rw, ok := log.(*redactWriter); ok {
		cmds = rw.w
	}
	if g, ok := cmds.(*actions.Guard); ok {
		cmds = g.Commands()
	}
	a := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(red.Writer(cmds)))
	masks := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(cmds))
	return &actionEnv{a: a, masks: masks, getenv: getenv, log: log, red: red}
}

// trigger is the event that started the run, its payload read once for the pull request, the
// base branch and the head commit.
func (e *actionEnv) trigger() *event.Event {
	if e.ev == nil {
		e.ev = event.New(e.getenv("GITHUB_EVENT_NAME"), e.getenv("GITHUB_EVENT_PATH"))
	}
	return e.ev
}

// readPull reads, once, the pull request the run is about from GitHub (GET
// /repos/{owner}/{repo}/pulls/{n}) where the payload lacks what is needed of it: an
// issue_comment names only its number, and GITHUB_SHA is the default branch's tip, so its head
// (where the check run goes) and its base (what `baseline: auto` compares with) come from
// GitHub's answer; a fork's workflow_run names no pull request, and pr-number's base is taken
// when its head is the run's (see event.Sides). Failing that, a warning says why; the check
// run is then not posted, rather than posted on the default branch's commit.
func (e *actionEnv) readPull(ctx context.Context, cfg *gateConfig) {
	ev := e.trigger()
	if e.pullRead {
		return
	}
	var pr int
	switch {
	case ev.NeedsPull():
		pr, _, _, _ = ev.PR("")
	case ev.Name == "workflow_run" && cfg.prNumber != "":
		if _, own, _, err := ev.PR(""); err != nil || own {
			return // GitHub named the pull request, base included
		}
		pr, _, _, _ = ev.PR(cfg.prNumber)
	}
	owner, repo, found := strings.Cut(e.getenv("GITHUB_REPOSITORY"), "/")
	if pr <= 0 || !found {
		return
	}
	e.pullRead = true
	client, err := api.NewClient(cfg.token, e.getenv("GITHUB_API_URL"), nil)
	if err != nil {
		e.a.Warningf("cannot read pull request #%d for its head and base: %v", pr, err)
		return
	}
	p, err := comment.NewGitHub(client, owner, repo, pr, comment.Options{Logf: e.logf}).Pull(ctx)
	if err != nil {
		e.a.Warningf("cannot read pull request #%d for its head and base: %v", pr, e.red.Error(err))
		return
	}
	ev.UsePull(p)
}

// logf writes one line to the step log, through the guard.
func (e *actionEnv) logf(format string, args ...any) {
	fmt.Fprintf(e.log, format+"\n", args...)
}

// inputs reads the action inputs that were given (non-empty) from INPUT_* variables.
func (e *actionEnv) inputs() map[string]setting {
	out := map[string]setting{}
	for _, k := range settingKeys {
		if v := e.a.GetInput(k); v != "" {
			out[k] = setting{value: v, source: "input " + k}
		}
	}
	e.mask([]string{out["github-token"].value})
	return out
}

// mask tells the runner to hide each secret (a github-token from the input or the config
// file) in the log from now on, once each, then has red replace it in everything written
// after. A nil *actionEnv (not under Actions) has nothing to mask.
func (e *actionEnv) mask(secrets []string) {
	if e == nil {
		return
	}
	for _, s := range secrets {
		if s != "" && !slices.Contains(e.masked, s) {
			actions.Mask(e.masks, s)
			e.masked = append(e.masked, s)
		}
	}
	e.red.add(secrets...)
}

// failRun reports a run that could not be evaluated (exit code 3) where a reviewer looks:
// an error annotation at the offending file, line and column, and the job summary.
func (e *actionEnv) failRun(code int, err error) int {
	if e == nil {
		return code
	}
	err = e.red.Error(err)
	ann := actions.Annotation{Title: "agentgate could not evaluate the suite", Message: err.Error()}
	var ie *input.Error
	if errors.As(err, &ie) {
		ann.File, ann.Line, ann.Col = ie.File, ie.Line, ie.Col
	}
	actions.Annotate(e.a, []actions.Annotation{ann})
	md := "## ⛔ agentgate: could not evaluate\n\nThe gate did not run, so this check fails (exit code 3). Fix the input or configuration below and re-run.\n\n```text\n" +
		strings.ReplaceAll(err.Error(), "```", "'''") + "\n```\n"
	if e.cfg != nil && e.cfg.checkName != "" {
		// The required check fails with the reason rather than stay pending: a run that could
		// not be evaluated must not pass, and should say why where the reviewer looks.
		run := checks.Run{Conclusion: checks.ConclusionFailure, Title: "could not evaluate", Summary: md}
		if ann.File != "" {
			run.Annotations = []checks.Annotation{e.checkAnnotation(ann.File, ann.Line, checks.LevelFailure, ann.Title, ann.Message)}
		}
		if note := e.postCheckRun(e.ctx, e.cfg, run); note != "" {
			md += "\n" + note + "\n"
		}
	}
	e.writeSummary(md)
	e.setOutputs([][2]string{{"verdict", "ERROR"}})
	return code
}

// publish does the GitHub work of docs/design.md#the-action for an evaluated run. Nothing here changes the
// verdict or the exit code: a comment that cannot be posted is a warning, not a failure.
func (e *actionEnv) publish(ctx context.Context, res *gate.Result, cfg *gateConfig, stderr io.Writer) {
	reportPath := cfg.jsonPath
	if reportPath == "" {
		reportPath = defaultReportJSON
		if err := writeReportFile(reportPath, e.red.report(func(w io.Writer) error { return jsonreport.Write(w, res) })); err != nil {
			e.a.Warningf("could not write the JSON report: %v", err)
			reportPath = ""
		}
	}
	reproduce := reproduceCommand(cfg, e.getenv("GITHUB_WORKSPACE"))

	summary := report.Markdown(res, report.Options{Reproduce: reproduce, MaxBytes: report.SummaryMaxBytes, FullReport: "the JSON report (output `report-json`)"})
	var anns []actions.Annotation
	for _, a := range report.Annotations(res, actions.MaxAnnotations) {
		a.File, a.Title, a.Message = e.red.String(a.File), e.red.String(a.Title), e.red.String(a.Message)
		anns = append(anns, actions.Annotation(a))
	}
	actions.Annotate(e.a, anns)

	commentURL, note := e.comment(ctx, res, cfg, reproduce)
	if note != "" {
		summary += "\n\n" + note + "\n"
	}
	if note := e.checkRun(ctx, res, cfg, reproduce); note != "" {
		summary += "\n\n" + note + "\n"
	}
	e.writeSummary(summary)
	e.setOutputs(outputs(res, reportPath, commentURL))
}

// writeSummary appends to the job summary; a failure is a warning, never a crash.
func (e *actionEnv) writeSummary(md string) {
	if ok, err := actions.WriteSummary(e.a, e.red.String(md)); err != nil {
		e.a.Warningf("could not write the job summary: %v", err)
	} else if !ok {
		fmt.Fprintln(e.log, "agentgate: GITHUB_STEP_SUMMARY is not set: no job summary written")
	}
}

// setOutputs writes the step outputs; a failure is a warning, never a crash.
func (e *actionEnv) setOutputs(kv [][2]string) {
	for i := range kv {
		kv[i][1] = e.red.String(kv[i][1])
	}
	ok, err := actions.SetOutputs(e.a, kv)
	switch {
	case err != nil && ok:
		e.a.Warningf("step output refused (the others are set): %v", err)
	case err != nil:
		e.a.Warningf("could not set the step outputs: %v", err)
	case !ok:
		fmt.Fprintln(e.log, "agentgate: GITHUB_OUTPUT is not set: no step outputs written")
	}
}

// comment posts or updates the PR comment. It returns the comment's URL and, when the
// comment could not be posted, a note for the job summary.
func (e *actionEnv) comment(ctx context.Context, res *gate.Result, cfg *gateConfig, reproduce string) (url, note string) {
	if !cfg.comment {
		return "", ""
	}
	pr, ok, warning, err := e.trigger().PR(cfg.prNumber)
	if err != nil {
		e.a.Warningf("not commenting: %v", err)
		return "", ""
	}
	if warning != "" {
		e.a.Warningf("%s", warning)
	}
	if !ok {
		fmt.Fprintf(e.log, "agentgate: no pull request for event %q: the report is in the job summary only\n", e.getenv("GITHUB_EVENT_NAME"))
		return "", ""
	}
	if e.trigger().Name == "merge_group" {
		// The queue's run gates the pull request merged onto the queue's base, not the pull
		// request as its author and reviewers see it: its comment stays the pull request's own.
		fmt.Fprintf(e.log, "agentgate: merge_group: the comment on #%d is left as the pull request's own run wrote it; this report is in the job summary and the check run\n", pr)
		return "", ""
	}
	if cfg.token == "" {
		e.a.Warningf("not commenting on #%d: no github-token", pr)
		return "", ""
	}
	owner, repo, found := strings.Cut(e.getenv("GITHUB_REPOSITORY"), "/")
	if !found {
		e.a.Warningf("not commenting: GITHUB_REPOSITORY %q is not owner/name", e.getenv("GITHUB_REPOSITORY"))
		return "", ""
	}
	client, err := api.NewClient(cfg.token, e.getenv("GITHUB_API_URL"), nil)
	if err != nil {
		e.a.Warningf("not commenting: %v", err)
		return "", ""
	}
	svc := comment.NewGitHub(client, owner, repo, pr, comment.Options{Mode: cfg.commentMode, Logf: e.logf})
	if e.getenv("GITHUB_EVENT_NAME") == "workflow_run" {
		if note, ok := e.verifyHead(ctx, svc, pr); !ok {
			return "", note
		}
	}
	body := report.Markdown(res, report.Options{Reproduce: reproduce, MaxBytes: report.CommentMaxBytes, FullReport: "the job summary or the JSON report (output `report-json`)"})
	out, err := svc.Upsert(ctx, e.red.String(body))
	switch {
	case errors.Is(err, comment.ErrNoPermission):
		e.a.Warningf("could not comment on pull request #%d: the token cannot write comments (fork pull requests get a read-only token). The verdict is unchanged; the report and how to comment from a workflow_run workflow are in the job summary.", pr)
		return "", comment.Hint()
	case errors.Is(err, comment.ErrNotFound):
		e.a.Warningf("could not comment on pull request #%d: %v. GitHub answers 404 when the pull request does not exist in %s/%s, when the token cannot see the repository, or when GITHUB_API_URL (%s) is not this repository's API; a read-only token would read and be refused writes with 403. The verdict is unchanged; the report is in the job summary.",
			pr, err, owner, repo, cmp.Or(e.getenv("GITHUB_API_URL"), api.DefaultAPIURL))
		return "", ""
	case err != nil:
		e.a.Warningf("could not comment on pull request #%d: %v", pr, err)
		return "", ""
	}
	fmt.Fprintf(e.log, "agentgate: report comment %s on #%d: %s\n", out.Action, pr, out.URL)
	if len(out.Stale) > 0 {
		fmt.Fprintf(e.log, "agentgate: %d older report comment(s) on #%d were left as they are: %v\n", len(out.Stale), pr, out.Stale)
	}
	return out.URL, ""
}

// checkRun posts the verdict as a check run named cfg.checkName on the head commit (docs/design.md#defaults),
// for branch protection to require. Like the comment it never changes the verdict or the exit
// code: a check run that cannot be posted is one warning, and a note for the job summary.
func (e *actionEnv) checkRun(ctx context.Context, res *gate.Result, cfg *gateConfig, reproduce string) (note string) {
	if cfg.checkName == "" {
		return ""
	}
	run := checks.Run{
		Conclusion: checkConclusion(res),
		Title:      e.red.String(report.Headline(res)),
		// Redacted before Publish cuts it to GitHub's limit, so a cut cannot leave part of a
		// secret that the redactor would no longer recognise.
		Summary: e.red.String(report.Markdown(res, report.Options{Reproduce: reproduce, MaxBytes: report.CommentMaxBytes,
			FullReport: "the job summary or the JSON report (output `report-json`)"})),
	}
	for _, f := range report.Findings(res, checks.MaxAnnotations) {
		level := checks.LevelWarning
		if f.Failure {
			level = checks.LevelFailure
		}
		run.Annotations = append(run.Annotations, e.checkAnnotation(f.File, f.Line, level, f.Title, f.Message))
	}
	return e.postCheckRun(ctx, cfg, run)
}

// checkAnnotation is a finding at file and line as a check run's annotation: the path relative
// to the repository, everything redacted. A gate has no file, and a file outside the
// repository is no place in it: such a finding goes on the workflow that set the gate, at its
// first line, and its message names the file.
func (e *actionEnv) checkAnnotation(file string, line int, level, title, message string) checks.Annotation {
	a := checks.Annotation{Line: line, Level: level, Title: e.red.String(title), Message: e.red.String(message)}
	file = e.red.String(file)
	if a.Path = checks.RepoPath(file, e.getenv("GITHUB_WORKSPACE")); a.Path == "" {
		a.Path, a.Line = e.workflowPath(), 1
		if file != "" {
			a.Message = "In " + file + ": " + a.Message
		}
	}
	return a
}

// postCheckRun posts run (its conclusion, title, summary and annotations set) under the name
// cfg.checkName on the run's head commit; when it cannot, it warns once and returns a note for
// the job summary. Nothing here changes the verdict or the exit code.
func (e *actionEnv) postCheckRun(ctx context.Context, cfg *gateConfig, run checks.Run) (note string) {
	name := cfg.checkName
	// why is agentgate's own text; detail, when set, quotes an error, which may hold GitHub's
	// answer or a payload's value, and is escaped in the markdown.
	notPosted := func(why, detail string) string {
		md := why
		if detail != "" {
			why += ": " + detail + "."
			md += ": " + report.EscapeCell(detail) + "."
		}
		e.a.Warningf("agentgate did not post the check run %q: %s The verdict is unchanged, and the job's own status still counts.", name, why)
		return fmt.Sprintf("> [!WARNING]\n> agentgate did not post the check run `%s`: %s", strings.ReplaceAll(name, "`", "'"), md)
	}
	if cfg.token == "" {
		return notPosted("there is no github-token.", "")
	}
	owner, repo, found := strings.Cut(e.getenv("GITHUB_REPOSITORY"), "/")
	if !found {
		return notPosted("GITHUB_REPOSITORY is not owner/name", fmt.Sprintf("%q", e.getenv("GITHUB_REPOSITORY")))
	}
	e.readPull(ctx, cfg)
	head, err := e.trigger().HeadSHA(e.getenv("GITHUB_SHA"))
	if err != nil {
		return notPosted("cannot tell the head commit", e.red.Error(err).Error())
	}
	client, err := api.NewClient(cfg.token, e.getenv("GITHUB_API_URL"), nil)
	if err != nil {
		return notPosted("no client for GitHub's API", err.Error())
	}
	run.Name, run.HeadSHA, run.DetailsURL = name, head, e.runURL()
	svc := checks.NewGitHub(client, owner, repo, checks.Options{Logf: e.logf})
	out, err := svc.Publish(ctx, run)
	switch {
	case errors.Is(err, checks.ErrNoPermission) && out.ID == 0:
		return notPosted("the token may not create check runs. Give the job `permissions: checks: write` "+
			"(a job that lists any permission gets none it does not list). A pull request from a fork gets a read-only token "+
			"whatever the workflow asks for: there, require the job's own status instead (see Branch protection in the README).", "")
	case err != nil && out.ID == 0:
		return notPosted("GitHub refused it", e.red.Error(err).Error())
	case err != nil:
		e.a.Warningf("check run %q (%s) was posted with its conclusion, but only %d of its %d annotations: %v", name, out.URL, out.Annotated, out.Annotated+out.Dropped, e.red.Error(err))
	}
	fmt.Fprintf(e.log, "agentgate: check run %q on %s: %s, %d annotation(s) in %d request(s): %s\n", name, head, run.Conclusion, out.Annotated, out.Requests, out.URL)
	return ""
}

// checkConclusion is the check run's conclusion: failure when the step fails (a FAIL, a
// breached gate, or a WARN under fail-on warn), success on PASS, and neutral for a WARN or FAIL
// the step lets through (fail-on fail for a WARN, a report-only fail-on). Branch protection
// counts neutral as passing, as the step's own exit code 0 does, while the checks list shows
// it apart from a clean success.
func checkConclusion(res *gate.Result) string {
	switch {
	case res.ExitCode != gate.ExitPass:
		return checks.ConclusionFailure
	case res.Verdict == verdict.Pass:
		return checks.ConclusionSuccess
	default:
		return checks.ConclusionNeutral
	}
}

// runURL is the web address of this workflow run, the check run's "Details" link; "" when the
// runner did not say.
func (e *actionEnv) runURL() string {
	server, repoName, id := e.getenv("GITHUB_SERVER_URL"), e.getenv("GITHUB_REPOSITORY"), e.getenv("GITHUB_RUN_ID")
	if u, err := url.Parse(server); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		strings.Count(repoName, "/") != 1 || strings.ContainsAny(repoName, "?#% ") {
		return ""
	}
	if n, err := strconv.ParseUint(id, 10, 63); err != nil || n == 0 {
		return ""
	}
	return strings.TrimRight(server, "/") + "/" + repoName + "/actions/runs/" + id
}

// workflowPath is the running workflow's file in the repository (from GITHUB_WORKFLOW_REF,
// "owner/repo/.github/workflows/ci.yml@refs/heads/main"), where a finding without a file of
// its own is annotated; ".github" when the runner did not say.
func (e *actionEnv) workflowPath() string {
	ref, _, _ := strings.Cut(e.getenv("GITHUB_WORKFLOW_REF"), "@")
	if i := strings.Index(ref, "/.github/"); i >= 0 {
		if p := checks.RepoPath(ref[i+1:], ""); p != "" {
			return p
		}
	}
	return ".github"
}

// verifyHead makes sure, for a workflow_run, that pull request pr is the one whose run produced
// the report: its head commit must be the event's workflow_run.head_sha (docs/design.md#trust-boundaries). The number
// may come from the other run's artifact, which a fork controls; without this check a passing
// run could rewrite another pull request's FAIL report. On any doubt it posts nothing, warns
// why and returns a note for the job summary; the verdict and exit code are unchanged.
func (e *actionEnv) verifyHead(ctx context.Context, svc *comment.GitHub, pr int) (note string, ok bool) {
	want, err := e.trigger().WorkflowRunHeadSHA()
	switch p := e.trigger().Pull(); {
	case err != nil:
	case p != nil && p.GetNumber() == pr: // read already, for the baseline
		err = comment.CheckHead(p, pr, want)
	default:
		err = svc.VerifyHead(ctx, want)
	}
	if err == nil {
		return "", true
	}
	var mismatch *comment.HeadMismatchError
	if errors.As(err, &mismatch) {
		e.a.Warningf("not commenting on pull request #%d: %v. The pull request number of a workflow_run must name the pull request whose run produced the report (a number read from that run's artifact is not trusted), so nothing was posted; the verdict is unchanged and the report is in the job summary.", pr, err)
		return fmt.Sprintf("> [!WARNING]\n> agentgate did not comment on pull request #%d: its head commit is not the commit this report is about.", pr), false
	}
	e.a.Warningf("not commenting on pull request #%d: cannot check that it is the pull request whose run produced the report: %v. The verdict is unchanged and the report is in the job summary.", pr, err)
	return "", false
}

// outputs are the action's outputs (docs/design.md#the-action), in a fixed order. Numbers are unrounded; an
// output whose evaluator did not run is empty.
func outputs(res *gate.Result, reportPath, commentURL string) [][2]string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	kv := [][2]string{{"verdict", string(res.Verdict)}}
	var total, failed, warned string
	if s := res.Reliability; s != nil {
		total, failed, warned = strconv.Itoa(s.Total), strconv.Itoa(s.Fail), strconv.Itoa(s.Warn)
	}
	kv = append(kv, [2]string{"traces-total", total}, [2]string{"traces-failed", failed}, [2]string{"traces-warned", warned})
	var rcs string
	if s := res.Coherence; s != nil {
		rcs = num(s.Mean)
	}
	kv = append(kv, [2]string{"rcs", rcs})
	var pa, kappa, abstain string
	if s := res.Agreement; s != nil {
		pa, abstain = num(s.PercentAgreement), num(s.AbstainRate)
		if s.KappaDefined {
			kappa = num(s.Kappa)
		}
	}
	kv = append(kv, [2]string{"percent-agreement", pa}, [2]string{"kappa", kappa}, [2]string{"abstain-rate", abstain})
	var newFailures, newlyFailed, regressions, baseSHA string
	if c := res.Comparison; c != nil {
		if c.Reliability != nil {
			newFailures = strconv.Itoa(c.Reliability.NewFailures)
		}
		if c.Success != nil {
			newlyFailed = strconv.Itoa(c.Success.NewFailures)
		}
		regressions, baseSHA = strings.Join(c.Degraded(), ","), c.Base.SHA
	}
	kv = append(kv, [2]string{"new-failures", newFailures}, [2]string{"runs-newly-failed", newlyFailed},
		[2]string{"regressions", regressions}, [2]string{"baseline-sha", baseSHA})
	var rate, successes string
	if s := res.Outcomes; s != nil && s.Known > 0 {
		rate, successes = num(s.SuccessRate), strconv.Itoa(s.Successes)
	}
	kv = append(kv, [2]string{"success-rate", rate}, [2]string{"successes", successes})
	kv = append(kv, [2]string{"report-json", reportPath}, [2]string{"comment-url", commentURL})
	return kv
}
