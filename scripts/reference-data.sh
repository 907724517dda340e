#!/usr/bin/env bash
# scripts/reference-data.sh: build the reference data the tests read (internal/refdata) from its
# public sources at pinned commits, for a clone that has no ../shared/reference-data beside it.
#
#   scripts/reference-data.sh [OUT]        (make reference-data; OUT defaults to .reference-data)
#
# Each upstream repository is cloned from https://github.com/OWNER/NAME (blobs fetched only as
# needed), the files are taken at the commit pinned below, and RS-1's expected outputs are
# produced by running RS-1 1.0.0 itself on its two sample traces (python3, standard library
# only). The result is byte for byte the files of ../shared/reference-data
# (internal/refdata's TestBuiltMatchesShared checks it wherever both are present).
#
# No network, or a mirror: git's url.<base>.insteadOf answers the URLs from elsewhere, e.g.
#   git config --global url./srv/mirror/sierra-research+tau-bench.insteadOf https://github.com/sierra-research/tau-bench
# or the same through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_0 / GIT_CONFIG_VALUE_0 in the environment.
#
# Needs git and python3. OUT is replaced only once everything was built.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.reference-data}

# The sources: repository, commit, and where the files are (see the README written into OUT).
RS1=anand008186/RS-1@62585a702e45529446b67c9ea5806d30cf13361e
RCS=falsumAI/rose-coherence-benchmark@b443c4e33b2d97adb1af9b66d4a106000d2c4b55
TAU=sierra-research/tau-bench@59a200c6d575d595120f1cb70fea53cef0632f6b
SWE=princeton-nlp/SWE-agent@0772c99cb2903ccf22ba543eaf128742afa470d6
INSPECT=UKGovernmentBEIS/inspect_ai@499e6152e7b8fc8cbd8ac5283536572aa6e4ab17
OTEL=open-telemetry/semantic-conventions@7b0c0fe1e6d7b7fc857ba496aad7919e368453e7

for tool in git python3; do
	command -v "$tool" >/dev/null || { echo "reference-data: $tool is needed" >&2; exit 1; }
done

work=$(mktemp -d)
tmp="$out.tmp"
trap 'rm -rf "$work" "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp/rs1" "$tmp/rcs" "$tmp/transcripts" "$tmp/formats"

# clone REPO@COMMIT: clones REPO once into $work (no checkout, blobs on demand) and checks that
# it has COMMIT; prints the clone's path.
clone() {
	local repo=${1%@*} commit=${1#*@}
	local dir="$work/${repo//\//+}"
	if [ ! -d "$dir" ]; then
		echo "reference-data: cloning https://github.com/$repo" >&2
		git clone --quiet --no-checkout --filter=blob:none "https://github.com/$repo" "$dir" 2>"$work/clone.err" || {
			cat "$work/clone.err" >&2
			echo "reference-data: cannot clone https://github.com/$repo (offline? see the insteadOf note in $0)" >&2
			exit 1
		}
	fi
	git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null || {
		echo "reference-data: https://github.com/$repo has no commit $commit" >&2
		exit 1
	}
	echo "$dir"
}

# take REPO@COMMIT PATH DEST: the file PATH of REPO at COMMIT, written to DEST under OUT.
take() {
	local dir
	dir=$(clone "$1")
	git -C "$dir" show "${1#*@}:$2" >"$tmp/$3"
}

# RS-1 1.0.0: its sample traces, and its own verdicts for them. RS-1's CLI prints the report and
# exits 0 PASS, 1 WARN, 2 FAIL; the expected file keeps the verdict, the scores by signal, the
# metadata and that exit code.
dir=$(clone "$RS1")
git -C "$dir" -c advice.detachedHead=false checkout --quiet "${RS1#*@}"
for name in sample_trace sample_trace_problematic; do
	cp "$dir/$name.json" "$tmp/rs1/$name.json"
	code=0
	(cd "$dir" && python3 -B -m rs1.cli "$name.json") >"$work/$name.report" || code=$?
	if [ "$code" -gt 2 ]; then
		echo "reference-data: RS-1 could not evaluate $name.json (exit code $code)" >&2
		exit 1
	fi
	python3 - "$work/$name.report" "$code" >"$tmp/rs1/$name.expected.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
expected = {
    "trace_id": report["trace_id"],
    "verdict": report["verdict"],
    "overall_score": report["overall_score"],
    "signal_scores": {s["signal_name"]: s["score"] for s in report["signal_scores"]},
    "metadata": report["metadata"],
    "exit_code": int(sys.argv[2]),
}
sys.stdout.write(json.dumps(expected, indent=2))
EOF
done

# The RCS harness's published echo run.
take "$RCS" results/rcs_echo_20251109-230939.json rcs/rcs_echo_20251109-230939.json

# Ten of tau-bench's historical gpt-4o airline trajectories, chosen by (task_id, trial): runs
# that reuse tool-call ids, return `Error: ...` results, loop on a failing booking.
take "$TAU" historical_trajectories/gpt-4o-airline.json gpt-4o-airline.json
python3 - "$tmp/gpt-4o-airline.json" >"$tmp/transcripts/tau-bench-airline-sample.json" <<'EOF'
import json, sys
runs = {(r["task_id"], r["trial"]): r for r in json.load(open(sys.argv[1]))}
chosen = [(0, 0), (0, 2), (0, 3), (3, 0), (3, 1), (3, 2), (3, 3), (4, 2), (8, 1), (9, 2)]
sys.stdout.write(json.dumps([runs[k] for k in chosen], indent=1))
EOF
rm "$tmp/gpt-4o-airline.json"

# SWE-agent's function-calling demonstration trajectory.
take "$SWE" trajectories/demonstrations/function_calling_simple.traj transcripts/swe-agent-function_calling_simple.traj

# Inspect AI's test logs.
take "$INSPECT" tests/log/test_eval_log/log_formats.json formats/inspect-log_formats.json
take "$INSPECT" tests/log/test_eval_log/log_formats.eval formats/inspect-log_formats.eval
take "$INSPECT" tests/log/test_eval_log/log_read_sample.eval formats/inspect-log_read_sample.eval

# The GenAI semantic conventions' message schemas.
take "$OTEL" docs/gen-ai/gen-ai-input-messages.json formats/otel-gen-ai-input-messages.json
take "$OTEL" docs/gen-ai/gen-ai-output-messages.json formats/otel-gen-ai-output-messages.json

cat >"$tmp/README.md" <<EOF
# Reference data (built)

Built by scripts/reference-data.sh (\`make reference-data\`) from the public sources at these
commits; the same files as ../shared/reference-data. Not part of the repository (git-ignored).

| path | source |
|---|---|
| rs1/sample_trace*.json | https://github.com/${RS1%@*} at ${RS1#*@} |
| rs1/*.expected.json | RS-1 1.0.0 run on those traces (python3 -m rs1.cli) |
| rcs/rcs_echo_20251109-230939.json | https://github.com/${RCS%@*} at ${RCS#*@} (MIT) |
| transcripts/tau-bench-airline-sample.json | https://github.com/${TAU%@*} at ${TAU#*@}, historical_trajectories/gpt-4o-airline.json, 10 runs (MIT) |
| transcripts/swe-agent-function_calling_simple.traj | https://github.com/${SWE%@*} at ${SWE#*@} (MIT) |
| formats/inspect-* | https://github.com/${INSPECT%@*} at ${INSPECT#*@}, tests/log/test_eval_log (MIT) |
| formats/otel-gen-ai-* | https://github.com/${OTEL%@*} at ${OTEL#*@}, docs/gen-ai (Apache-2.0) |
EOF

rm -rf "$out"
mv "$tmp" "$out"
echo "reference-data: built $out" >&2
