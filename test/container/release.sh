#!/usr/bin/env bash
# test/container/release.sh: prove the release path offline. Starts a registry on 127.0.0.1
# (Debian's docker-registry, temporary configuration and storage), runs scripts/release.sh against
# it with podman (--insecure: plain HTTP), then checks what a user's step would get:
#
#   - action.yml's runs.image is docker://127.0.0.1:PORT/acme/agentgate:VERSION@sha256:DIGEST, with
#     DIGEST the one the registry serves for VERSION (asked over its HTTP API, not the script), the
#     same digest behind :vMAJOR, and nothing else in action.yml changed;
#   - the image pulled by that digest, from an empty image store, runs the way the GitHub runner
#     runs a container action (INPUT_*, GITHUB_*, the workspace mounted at /github/workspace, the
#     args of action.yml) on fixtures/pass and fixtures/fail, with the exit codes, outputs and
#     JUnit XML that the gate gives.
#
# It prints the figures a release is for: the image's size (on disk and compressed in the
# registry), the time to pull it and to start it, against the time to build the Dockerfile (cold:
# an empty Go build cache; the stand-in builder image already present, as after a runner's pull).
#
#   sudo bash test/container/release.sh     # CI calls it from .ci/run (make release-test) as root
#
# Environment: as test/container/run.sh (AGENTGATE_CONTAINER_CACHE, AGENTGATE_CONTAINER_DRIVER,
# AGENTGATE_CONTAINER_KEEP=1, DEBIAN_MIRROR). Exit status: 0 every check passed, 1 a check failed,
# 2 the setup failed (under CI=true a missing tool is a setup failure, never a skip).

set -Eeuo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/test/container"
CACHE=${AGENTGATE_CONTAINER_CACHE:-/var/cache/agentgate-container}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
VERSION=v9.8.7 MAJOR=v9
OWNER=acme NAME=support-agent
t_start=$(date +%s)

TAG=release
# shellcheck source=test/container/lib.sh
source "$HERE/lib.sh"
REG_PID=""
REPO=""
PULL_STORE=""
cleanup() {
	[[ -z $REG_PID ]] || kill "$REG_PID" 2>/dev/null || true
	if [[ -n ${PULL_STORE:-} && -d $PULL_STORE ]]; then
		pp rmi --all --force >/dev/null 2>&1 || true
		rm -rf "$PULL_STORE" "/run/agentgate-pull-$$"
	fi
	[[ -z $REPO ]] || podman images --format '{{.ID}}' --filter "reference=$REPO" | xargs -r podman rmi --force >/dev/null 2>&1 || true
	podman manifest rm "localhost/agentgate-release:$VERSION" >/dev/null 2>&1 || true
	podman image prune -f >/dev/null 2>&1 || true # the --no-cache build's intermediate images
	if [[ ${AGENTGATE_CONTAINER_KEEP:-} == 1 ]]; then
		say "kept ${TMP:-}"
	else
		[[ -z ${TMP:-} ]] || rm -rf "$TMP"
	fi
}
trap cleanup EXIT

# Tools, podman under $CACHE, the work tree snapshot in $SRC, the stand-in builder image.
container_setup
if ! command -v docker-registry >/dev/null; then
	[[ $(id -u) == 0 ]] || die "docker-registry is missing: run as root so that apt-get can add it"
	say "installing docker-registry (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null; } ||
		die "apt-get install docker-registry failed"
fi
# The package's service may not be running here (no systemd); its own instance is never used.

# ---------------------------------------------------------------------------------------------
# 1. A registry of our own on 127.0.0.1, on a port the kernel picks.
# ---------------------------------------------------------------------------------------------
mkdir -p "$TMP/registry"
cat >"$TMP/registry/config.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $TMP/registry/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:0
EOF
docker-registry serve "$TMP/registry/config.yml" >"$TMP/registry/log" 2>&1 9>&- &
REG_PID=$!
PORT=""
for _ in $(seq 1 100); do
	PORT=$(sed -nE 's/.*msg="listening on 127\.0\.0\.1:([0-9]+)".*/\1/p' "$TMP/registry/log" | head -1)
	[[ -n $PORT ]] && break
	kill -0 "$REG_PID" 2>/dev/null || die "docker-registry exited: $(tail -3 "$TMP/registry/log")"
	sleep 0.1
done
[[ -n $PORT ]] || die "docker-registry printed no address in 10 s"
REG="127.0.0.1:$PORT"
REPO="$REG/$OWNER/agentgate"
curl -fsS "http://$REG/v2/" >/dev/null || die "the registry at $REG does not answer /v2/"
say "registry $REG (pid $REG_PID)"

# ---------------------------------------------------------------------------------------------
# 2. The release script, on the snapshot: build (cold Go build cache), push, pin action.yml.
# ---------------------------------------------------------------------------------------------
cp "$SRC/action.yml" "$TMP/action.yml.before"
GOMODCACHE_HOST=$(cd "$SRC" && go env GOMODCACHE)
(cd "$SRC" && go mod download) >"$TMP/mod-download.log" 2>&1 || die "go mod download failed"
mkdir -p "$TMP/go-build-cold"
t0=$(ms_now)
rel_rc=0
bash "$SRC/scripts/release.sh" --engine podman --platforms linux/amd64 --insecure \
	--action "$SRC/action.yml" --context "$SRC" "$VERSION" "$REPO" -- \
	--no-cache --pull=never --network none -v "$GOMODCACHE_HOST:/go/pkg/mod:ro" -v "$TMP/go-build-cold:/root/.cache/go-build" \
	>"$TMP/release.out" 2>"$TMP/release.err" || rel_rc=$?
RELEASE_MS=$(($(ms_now) - t0))
if ((rel_rc != 0)); then
	tail -30 "$TMP/release.err" | sed 's/^/    /'
	bad "scripts/release.sh exits 0" "exit $rel_rc"
	echo "release: $PASSED passed, $FAILED failed"
	exit 1
fi
ok "scripts/release.sh $VERSION $REPO exits 0 ($((RELEASE_MS / 1000)) s, cold build)"
REF=$(tail -1 "$TMP/release.out")

# The registry's own word on the digests (HTTP API), not the script's.
accept='application/vnd.oci.image.index.v1+json,application/vnd.docker.distribution.manifest.list.v2+json,application/vnd.oci.image.manifest.v1+json,application/vnd.docker.distribution.manifest.v2+json'
reg_digest() { curl -fsSI -H "Accept: $accept" "http://$REG/v2/$OWNER/agentgate/manifests/$1" | tr -d '\r' | awk -F': ' 'tolower($1) == "docker-content-digest" {print $2}'; }
DIGEST=$(reg_digest "$VERSION")
check "the registry serves $VERSION (digest sha256:…)" 1 "$(grep -cE '^sha256:[0-9a-f]{64}$' <<<"$DIGEST")"
check "the registry serves $MAJOR with the same digest" "$DIGEST" "$(reg_digest "$MAJOR")"
check "release.sh prints the pinned reference" "$REPO:$VERSION@$DIGEST" "$REF"
check "action.yml runs.image is the pushed image by digest" \
	"  image: docker://$REPO:$VERSION@$DIGEST" "$(grep -E '^  image:' "$SRC/action.yml")"
check "action.yml: nothing else changed" \
	"< image: Dockerfile|> image: docker://$REPO:$VERSION@$DIGEST" \
	"$(diff "$TMP/action.yml.before" "$SRC/action.yml" | grep '^[<>]' | sed 's/  */ /g' | paste -sd'|')"

# The pushed index lists linux/amd64 (the test builds one platform; the workflow two).
index=$(curl -fsS -H "Accept: $accept" "http://$REG/v2/$OWNER/agentgate/manifests/$DIGEST")
check "the pushed manifest list names linux/amd64" "linux/amd64" \
	"$(jq -r '[.manifests[].platform | "\(.os)/\(.architecture)"] | join(",")' <<<"$index" 2>&1)"
COMPRESSED=$(for m in $(jq -r '.manifests[].digest' <<<"$index"); do
	curl -fsS -H "Accept: $accept" "http://$REG/v2/$OWNER/agentgate/manifests/$m" | jq '[.config.size] + [.layers[].size] | add'
done | awk '{s += $1} END {print s + 0}')

# ---------------------------------------------------------------------------------------------
# 3. Pull by digest from an empty store, as a runner does for `image: docker://…`.
# ---------------------------------------------------------------------------------------------
# A fresh image store of its own: nothing of the release build (or of run.sh's image, which
# shares the CA layer) is there, so the pull fetches every layer, as on a fresh runner.
PULL_STORE="$CACHE/release-pull-store"
PP=(podman --root "$PULL_STORE/root" --runroot "/run/agentgate-pull-$$" --storage-driver "$driver")
pp() { "${PP[@]}" "$@"; }
rm -rf "$PULL_STORE"
mkdir -p "$PULL_STORE"
check "the pull store holds no image" "" "$(pp images -q)"
image_ref=$(sed -nE 's/^  image: docker:\/\/(.*)$/\1/p' "$SRC/action.yml")
t0=$(ms_now)
pp pull --tls-verify=false "$image_ref" >"$TMP/pull.log" 2>&1 || { bad "podman pull $image_ref" "$(tail -5 "$TMP/pull.log")"; exit 1; }
PULL_MS=$(($(ms_now) - t0))
ok "podman pull by digest ($PULL_MS ms)"
IMAGE_SIZE=$(pp image inspect "$image_ref" --format '{{.Size}}')
check "the pulled image says the release's version" "agentgate $VERSION" "$(pp run --rm --network none "$image_ref" --version 2>&1)"

# ---------------------------------------------------------------------------------------------
# 4. Run it as the runner runs a Docker container action, on the fixtures.
# ---------------------------------------------------------------------------------------------
mapfile -t RUN_ARGS < <(awk '
	/^[^ \t#]/ { sect = $0; sub(/:.*/, "", sect); inargs = 0; next }
	sect == "runs" && /^  args:/ { inargs = 1; next }
	sect == "runs" && inargs && /^    - / { a = $0; sub(/^    - /, "", a); gsub(/^["'\'']|["'\'']$/, "", a); print a; next }
	sect == "runs" && /^  [^ ]/ { inargs = 0 }
' "$SRC/action.yml")
check "action.yml args" "gate" "${RUN_ARGS[*]}"

# run_step NAME SUITE: a push to main, the suite's inputs, junit: reports/junit.xml. Sets
# STEP_RC, STEP_OUT (GITHUB_OUTPUT file), STEP_WS (workspace), STEP_STDOUT.
run_step() {
	local name=$1 suite=$2 dir="$TMP/step-$1"
	local guid
	guid=0b1e5a27-6c1d-4f5e-9a8b-$(printf '%012d' $$)
	mkdir -p "$dir/home" "$dir/workflow" "$dir/file_commands" "$dir/workspace"
	cp -a "$SRC/fixtures/." "$dir/workspace/"
	local sha=8f14e45fceea167a5a36dedd4bea2543a0b1c7d2
	sed -e "s|@SHA@|$sha|g" -e "s|@BEFORE@|0000000000000000000000000000000000000000|g" -e "s|@OWNER@|$OWNER|g" \
		-e "s|@NAME@|$NAME|g" -e "s|@PR@|7|g" -e "s|@SERVER@|https://github.com|g" -e "s|@API@|http://127.0.0.1:9|g" \
		"$HERE/events/push.json" >"$dir/workflow/event.json"
	local f
	for f in add_path set_env set_output save_state step_summary; do : >"$dir/file_commands/${f}_$guid"; done
	local env=(
		-e CI=true -e GITHUB_ACTIONS=true -e HOME=/github/home -e GITHUB_WORKSPACE=/github/workspace
		-e GITHUB_EVENT_PATH=/github/workflow/event.json -e GITHUB_EVENT_NAME=push
		-e "GITHUB_REPOSITORY=$OWNER/$NAME" -e "GITHUB_REPOSITORY_OWNER=$OWNER" -e GITHUB_API_URL=http://127.0.0.1:9
		-e GITHUB_SERVER_URL=https://github.com -e "GITHUB_SHA=$sha" -e GITHUB_REF=refs/heads/main
		-e GITHUB_REF_NAME=main -e GITHUB_ACTOR=octocat -e GITHUB_WORKFLOW=agents -e GITHUB_JOB=gate
		-e GITHUB_RUN_ID=9000000001 -e GITHUB_RUN_NUMBER=1 -e GITHUB_RUN_ATTEMPT=1
		-e "GITHUB_ACTION_REPOSITORY=$OWNER/agentgate" -e "GITHUB_ACTION_REF=$VERSION"
		-e "GITHUB_OUTPUT=/github/file_commands/set_output_$guid" -e "GITHUB_STEP_SUMMARY=/github/file_commands/step_summary_$guid"
		-e "GITHUB_ENV=/github/file_commands/set_env_$guid" -e "GITHUB_PATH=/github/file_commands/add_path_$guid"
		-e "GITHUB_STATE=/github/file_commands/save_state_$guid" -e RUNNER_OS=Linux -e RUNNER_ARCH=X64
		-e RUNNER_TEMP=/home/runner/work/_temp
		# Every input of action.yml is set by the runner: to its default or "".
		-e INPUT_TRACES="$suite/traces.jsonl" -e INPUT_TASKS="$suite/tasks.json" -e INPUT_PAIRS="$suite/pairs.jsonl"
		-e INPUT_SCHOLAR= -e INPUT_AUDITOR= -e INPUT_COHERENCE-MIN= -e INPUT_PA-MIN= -e INPUT_KAPPA-MIN=
		-e INPUT_ABSTAIN-MAX= -e INPUT_MAX-FAILED-TRACES= -e INPUT_ALLOW-UNMATCHED= -e INPUT_PROFILE= -e INPUT_FAIL-ON=
		-e INPUT_CONFIG= -e INPUT_JUNIT=reports/junit.xml -e INPUT_COMMENT=true -e INPUT_COMMENT-MODE=update
		-e INPUT_GITHUB-TOKEN=ghs_releasetest -e INPUT_PR-NUMBER=
		-e INPUT_BASELINE= -e INPUT_BASELINE-ARTIFACT= -e INPUT_FAIL-ON-REGRESSION= -e INPUT_MAX-NEW-FAILURES=
		-e INPUT_REGRESSION-ALPHA= -e INPUT_PASS-K-MIN= -e INPUT_PASS-K= -e INPUT_MERGE=
		-e INPUT_FAIL-ON-SKIPPED= -e INPUT_MAX-INPUT-BYTES= -e INPUT_OUTCOMES= -e INPUT_OUTCOME-SCORER=
		-e INPUT_SUCCESS-THRESHOLD= -e INPUT_SUCCESS-RATE-MIN= -e INPUT_SARIF= -e INPUT_OTEL=
		-e INPUT_TOKEN-BUDGET= -e INPUT_CHECK-NAME= -e INPUT_OUTCOME-FIELD= -e INPUT_PLAN-EFFECT=
	)
	STEP_RC=0
	timeout 120 "${PP[@]}" run --rm --network none --workdir /github/workspace "${env[@]}" \
		-v "$dir/home:/github/home" -v "$dir/workflow:/github/workflow" -v "$dir/file_commands:/github/file_commands" \
		-v "$dir/workspace:/github/workspace" "$image_ref" "${RUN_ARGS[@]}" >"$dir/stdout" 2>"$dir/stderr" || STEP_RC=$?
	STEP_OUT="$dir/file_commands/set_output_$guid" STEP_WS="$dir/workspace" STEP_STDOUT="$dir/stdout"
}
# output FILE NAME: a step output (name<<DELIM … DELIM form).
output() { awk -v k="$2" 'inb { if ($0 == d) { inb = 0; if (n == k) print v; next } v = v $0; next } index($0, "<<") { n = substr($0, 1, index($0, "<<") - 1); d = substr($0, index($0, "<<") + 2); inb = 1; v = "" }' "$1"; }
junit_counts() { sed -n 's/^<testsuites name="agentgate" tests="\([0-9]*\)" failures="\([0-9]*\)".*/\1 \2/p' "$1"; }

# Inputs not declared in action.yml would be ignored by the runner: the test must set real ones.
declared=$(awk '/^[^ #]/ {s = $0} s ~ /^inputs:/ && /^  [a-z-]+:$/ {sub(/:$/, ""); sub(/^  /, ""); print}' "$SRC/action.yml" | sort | paste -sd' ')
check "action.yml declares the inputs the step sets" \
	"abstain-max allow-missing-runs allow-unmatched auditor baseline baseline-artifact check-name coherence-min comment comment-mode config fail-on fail-on-regression fail-on-skipped github-token junit kappa-min max-failed-traces max-input-bytes max-new-failures merge no-traces otel outcome-field outcome-scorer outcomes pa-min pairs pass-k pass-k-min plan-effect pr-number profile regression-alpha sarif scholar success-rate-min success-threshold tasks token-budget traces" \
	"$declared"

run_step pass pass
check "fixtures/pass: exit code" 0 "$STEP_RC"
check "fixtures/pass: output verdict" PASS "$(output "$STEP_OUT" verdict)"
check "fixtures/pass: output traces-total" 5 "$(output "$STEP_OUT" traces-total)"
check "fixtures/pass: JUnit XML (tests failures)" "13 0" "$(junit_counts "$STEP_WS/reports/junit.xml")"

run_step fail fail
check "fixtures/fail: exit code" 2 "$STEP_RC"
check "fixtures/fail: output verdict" FAIL "$(output "$STEP_OUT" verdict)"
check "fixtures/fail: output traces-failed" 2 "$(output "$STEP_OUT" traces-failed)"
check "fixtures/fail: JUnit XML (tests failures)" "11 7" "$(junit_counts "$STEP_WS/reports/junit.xml")"
check "fixtures/fail: ::error annotations" 7 "$(grep -c '^::error' "$STEP_STDOUT" || true)"

# Start time of the pulled image (median of 5 `podman run --rm IMAGE --version`).
starts=()
for _ in 1 2 3 4 5; do
	t0=${EPOCHREALTIME/./}
	pp run --rm --network none "$image_ref" --version >/dev/null 2>&1 || true
	starts+=($((${EPOCHREALTIME/./} - t0)))
done
START_US=$(printf '%s\n' "${starts[@]}" | median)

# ---------------------------------------------------------------------------------------------
# 5. Figures.
# ---------------------------------------------------------------------------------------------
kill "$REG_PID" 2>/dev/null || true
wait "$REG_PID" 2>/dev/null || true
REG_PID=""
check "the registry is stopped" "no answer" "$(curl -fsS --max-time 2 "http://$REG/v2/" >/dev/null 2>&1 && echo answers || echo "no answer")"
mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1000000}'; }
say "image: $(mb "$IMAGE_SIZE") on disk, $(mb "$COMPRESSED") compressed in the registry"
say "pull by digest $PULL_MS ms + start $((START_US / 1000)) ms (podman run --rm --version, median of 5)"
say "against: scripts/release.sh = build of the Dockerfile (no layer cache, cold Go build cache, builder image present) + push + verify: $((RELEASE_MS / 1000)).$(((RELEASE_MS % 1000) / 100)) s"
say "took $(($(date +%s) - t_start)) s"
if ((FAILED)); then
	say "failed checks:"
	printf '  - %s\n' "${FAILURES[@]}"
fi
echo "release: $PASSED passed, $FAILED failed"
((FAILED == 0))
