package comment

// Hint explains, for the step log and the job summary, why the report could
// not be posted as a comment when Upsert fails with ErrNoPermission, and how
// to post it anyway: from a workflow_run workflow, which runs in the base
// repository with a token that may write even for pull requests from forks.
func Hint() string {
	return hint
}

const hint = "agentgate could not comment on the pull request: the token may not write to it. " +
	"The verdict is unchanged and the full report is in the job summary and the annotations. " +
	"A pull request from a fork gets a read-only GITHUB_TOKEN, whatever the workflow asks for; " +
	"for a pull request from a branch of this repository, give the job `permissions: pull-requests: write` " +
	"(repositories created since 2023 default to a read-only token). " +
	"To comment on pull requests from forks, let the pull_request workflow upload the eval outputs and the " +
	"pull request number as an artifact, and run agentgate from a second workflow triggered by workflow_run, " +
	"which runs with this repository's token; it must only read the artifact as data, never run code from it. " +
	"agentgate then comments only when that pull request's head commit is the run's head_sha, so a number in the artifact cannot name another pull request:\n" +
	"\n" +
	"```yaml\n" +
	"# In the pull_request workflow, after the evals ran:\n" +
	"#   - run: echo \"${{ github.event.number }}\" > eval-out/pr-number\n" +
	"#   - uses: actions/upload-artifact@v4\n" +
	"#     with: { name: agentgate-inputs, path: eval-out/ }\n" +
	"name: agentgate report\n" +
	"on:\n" +
	"  workflow_run:\n" +
	"    workflows: [evals]          # the name of the pull_request workflow\n" +
	"    types: [completed]\n" +
	"permissions:\n" +
	"  actions: read                # download the other run's artifact\n" +
	"  pull-requests: write         # post the report comment\n" +
	"jobs:\n" +
	"  report:\n" +
	"    if: github.event.workflow_run.event == 'pull_request'\n" +
	"    runs-on: ubuntu-latest\n" +
	"    steps:\n" +
	"      - uses: actions/download-artifact@v4\n" +
	"        with:\n" +
	"          name: agentgate-inputs\n" +
	"          path: eval-out\n" +
	"          run-id: ${{ github.event.workflow_run.id }}\n" +
	"          github-token: ${{ github.token }}\n" +
	"      - id: pr\n" +
	"        run: echo \"number=$(tr -cd 0-9 < eval-out/pr-number)\" >> \"$GITHUB_OUTPUT\"\n" +
	"      - uses: agentgate/agentgate@v1\n" +
	"        with:\n" +
	"          traces: eval-out/traces/*.jsonl\n" +
	"          pr-number: ${{ steps.pr.outputs.number }}\n" +
	"```\n"
