#!/usr/bin/env bash
# test/container/run.sh: prove the container. Builds the repository's Dockerfile unchanged and runs
# the image the way the GitHub runner runs a Docker container action, against the GitHub REST
# emulator (test/ghemu), then checks exit codes, step outputs, the job summary and the PR comment.
#
#   sudo bash test/container/run.sh          # developer; CI calls it from .ci/run as root
#
# It needs no Docker daemon and pulls no image: podman (installed from Debian when missing) builds
# and runs everything, and the builder stage's base image (golang:1.26-bookworm) is stood in for by
# a local image of the same name made with debootstrap and this machine's Go toolchain. The build
# runs with no network: modules come from the host's module cache (filled by `go mod download`,
# checked against go.sum by `go mod verify` inside the build).
#
# Environment (all optional):
#   AGENTGATE_CONTAINER_CACHE   cache folder (default /var/cache/agentgate-container): debootstrap
#                               tarball, podman storage, Go build cache of the image build
#   AGENTGATE_CONTAINER_DRIVER  podman storage driver: overlay or vfs (default: overlay when this
#                               kernel can mount it in the cache folder, else vfs)
#   AGENTGATE_CONTAINER_KEEP=1  keep the temporary folder (workspaces, outputs, logs) for a look
#   DEBIAN_MIRROR               mirror for debootstrap (default http://deb.debian.org/debian)
#
# Exit status: 0 when every check passed, 1 when a check failed, 2 when the setup failed.

set -Eeuo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/test/container"
CACHE=${AGENTGATE_CONTAINER_CACHE:-/var/cache/agentgate-container}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
IMAGE=localhost/agentgate:container-test
SIZE_LIMIT=$((20 * 1000 * 1000)) # bytes: the image must stay under 20 MB

# The repository the emulator serves, the pull request and the token of the runs.
OWNER=acme NAME=support-agent PR=7
TOKEN="ghs_container$(date +%s)test$$"

t_start=$(date +%s)

TAG=container
# shellcheck source=test/container/lib.sh
source "$HERE/lib.sh"
EMU_PIDS=()
MOUNTED=""
cleanup() {
	local pid
	for pid in "${EMU_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	[[ -z $MOUNTED ]] || podman image unmount "$IMAGE" >/dev/null 2>&1 || true
	if [[ ${AGENTGATE_CONTAINER_KEEP:-} == 1 ]]; then
		say "kept ${TMP:-}"
	else
		[[ -z ${TMP:-} ]] || rm -rf "$TMP"
	fi
}
trap cleanup EXIT

# Sections 1 to 4 (tools, podman configuration, a snapshot of the work tree in $SRC, the
# stand-in builder image): test/container/lib.sh, shared with release.sh.
container_setup



# ---------------------------------------------------------------------------------------------
# 5. Build the repository's Dockerfile unchanged: no pull, no network. The host's module cache
#    (read-only) and a build cache of our own are mounted for RUN steps; the image is the same
#    without them (the reproducibility check below compares the binary with a host build).
# ---------------------------------------------------------------------------------------------
(cd "$SRC" && go mod download) >"$TMP/mod-download.log" 2>&1 || die "go mod download failed: $(tail -5 "$TMP/mod-download.log")"
GOMODCACHE_HOST=$(cd "$SRC" && go env GOMODCACHE)
say "building $IMAGE from the Dockerfile"
t0=$(ms_now)
build_rc=0
podman build --pull=never --network none \
	-v "$GOMODCACHE_HOST:/go/pkg/mod:ro" -v "$CACHE/go-build:/root/.cache/go-build" \
	-f "$SRC/Dockerfile" -t "$IMAGE" "$SRC" >"$TMP/build.log" 2>&1 || build_rc=$?
BUILD_MS=$(($(ms_now) - t0))
if ((build_rc != 0)); then
	sed 's/^/    /' "$TMP/build.log" | tail -40
	bad "image builds from the Dockerfile unchanged (--pull=never, --network none)" "podman build exited $build_rc"
	say "$PASSED passed, $FAILED failed"
	exit 1
fi
ok "image builds from the Dockerfile unchanged (--pull=never, --network none) in $((BUILD_MS / 1000)).$(((BUILD_MS % 1000) / 100)) s"

# What the runner would send as build context (it builds in the checkout, .git and all): build a
# probe that copies the context of the real work tree, with the repository's .dockerignore, and
# lists it.
cat >"$TMP/Containerfile.context" <<EOF
FROM $BASE
COPY . /context
RUN cd /context && find . -type f | sort > /context.files && du -sk . | cut -f1 > /context.kb
EOF
ctx_rc=0
podman build --pull=never --network none -f "$TMP/Containerfile.context" -t localhost/agentgate:context-probe "$ROOT" \
	>"$TMP/context-build.log" 2>&1 || ctx_rc=$?
if ((ctx_rc == 0)); then
	podman run --rm --network none localhost/agentgate:context-probe cat /context.files >"$TMP/context.files"
	CONTEXT_KB=$(podman run --rm --network none localhost/agentgate:context-probe cat /context.kb)
	CONTEXT_FILES=$(wc -l <"$TMP/context.files")
	podman rmi localhost/agentgate:context-probe >/dev/null 2>&1 || true
	unwanted=$(grep -E '^\./(\.git/|\.github/|test/|fixtures/)|/node_modules/|/testdata/|_test\.go$' "$TMP/context.files" | head -5 | tr '\n' ' ' || true)
	check "build context leaves out .git, tests, fixtures, node_modules ($CONTEXT_FILES files, $CONTEXT_KB KB)" "" "$unwanted"
	need_files=$(for f in ./go.mod ./go.sum; do grep -qxF "$f" "$TMP/context.files" || printf '%s ' "$f"; done)
	grep -q '^\./entrypoint/.*\.go$' "$TMP/context.files" || need_files+="./entrypoint/*.go "
	grep -qxF './cmd/agentgate/main.go' "$TMP/context.files" || need_files+="./cmd/agentgate/main.go"
	check "build context has go.mod, go.sum, cmd/agentgate/, entrypoint/" "" "$need_files"
else
	bad "build context probe" "$(tail -5 "$TMP/context-build.log")"
fi

# ---------------------------------------------------------------------------------------------
# 6. The image itself: size, configuration, contents, reproducibility, start time.
# ---------------------------------------------------------------------------------------------
say "image"
IMAGE_SIZE=$(podman image inspect "$IMAGE" --format '{{.Size}}')
check_true "image size $IMAGE_SIZE bytes < $SIZE_LIMIT" "expected under $SIZE_LIMIT bytes, got $IMAGE_SIZE" \
	test "$IMAGE_SIZE" -lt "$SIZE_LIMIT"
check "no USER (actions run as root)" "" "$(podman image inspect "$IMAGE" --format '{{.Config.User}}')"
entrypoint=$(podman image inspect "$IMAGE" --format '{{json .Config.Entrypoint}}')
check "ENTRYPOINT is the absolute /agentgate" '["/agentgate"]' "$entrypoint"
check "CMD is gate" '["gate"]' "$(podman image inspect "$IMAGE" --format '{{json .Config.Cmd}}')"

MNT=$(podman image mount "$IMAGE") || die "podman image mount failed"
MOUNTED=1
files=$(cd "$MNT" && find . -type f -o -type l | sed 's,^\./,,' | sort | tr '\n' ' ')
check "image holds only the binary and the CA bundle" "agentgate etc/ssl/certs/ca-certificates.crt " "$files"
ncert=$(grep -c 'BEGIN CERTIFICATE' "$MNT/etc/ssl/certs/ca-certificates.crt" || true)
check_true "CA bundle at /etc/ssl/certs/ca-certificates.crt ($ncert certificates)" "expected 100 or more, got $ncert" \
	test "${ncert:-0}" -ge 100
BIN_SIZE=$(stat -c %s "$MNT/agentgate")
image_sha=$(sha256sum "$MNT/agentgate" | cut -c1-64)
cp "$MNT/agentgate" "$TMP/agentgate.image"
podman image unmount "$IMAGE" >/dev/null && MOUNTED=""

# Reproducible from go.sum: the same toolchain on the host, another path, the same flags, must give
# the same bytes (only meaningful with the stand-in, which carries this very toolchain).
host_build_rc=0
(cd "$SRC" && CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
	go build -trimpath -ldflags="-s -w -X main.version=dev" -o "$TMP/agentgate.host" ./cmd/agentgate) >"$TMP/host-build.log" 2>&1 || host_build_rc=$?
if ((host_build_rc == 0)); then
	check "binary is reproducible: image build == host build (sha256)" "$image_sha" "$(sha256sum "$TMP/agentgate.host" | cut -c1-64)"
else
	bad "host build for the reproducibility check" "$(tail -5 "$TMP/host-build.log")"
fi

# Start time: the binary alone (host exec of the image's binary) and a whole `podman run --rm`.
version_out=$("$TMP/agentgate.image" --version 2>&1) || true
check_true "binary runs: --version says '$version_out'" "expected 'agentgate …'" grep -q '^agentgate ' <<<"$version_out"
# Times in µs from bash's clock (no `date` process in the measure); /bin/true is the floor that
# process creation alone costs on this machine.
time_us() {
	local i t0 t1
	for i in 1 2 3 4 5; do
		t0=${EPOCHREALTIME/./}
		"$@" >/dev/null 2>&1 || true
		t1=${EPOCHREALTIME/./}
		echo $((t1 - t0))
	done | median
}
START_BIN_US=$(time_us "$TMP/agentgate.image" --version)
START_TRUE_US=$(time_us /bin/true)
podman run --rm "$IMAGE" --version >/dev/null 2>&1 || true # warm
START_RUN_US=$(time_us podman run --rm --network none "$IMAGE" --version)
podman run --rm --network none "$IMAGE" --version >"$TMP/run-version.out" 2>&1 || true
check "podman run --rm IMAGE --version prints the version" "$version_out" "$(cat "$TMP/run-version.out")"

# ---------------------------------------------------------------------------------------------
# 7. The GitHub emulator (test/ghemu): built once, one instance per scenario group.
# ---------------------------------------------------------------------------------------------
EMU_BIN=""
SPEC_FILE="$SRC/test/github/node_modules/@octokit/openapi/generated/api.github.com.json"
[[ -f $SPEC_FILE ]] || SPEC_FILE="$ROOT/test/github/node_modules/@octokit/openapi/generated/api.github.com.json"
if [[ -d $SRC/test/ghemu/cmd/ghemu ]]; then
	if (cd "$SRC" && go build -o "$TMP/ghemu" ./test/ghemu/cmd/ghemu) >"$TMP/ghemu-build.log" 2>&1; then
		EMU_BIN="$TMP/ghemu"
	else
		bad "the GitHub emulator builds" "$(tail -5 "$TMP/ghemu-build.log")"
	fi
fi

# start_emulator NAME FLAGS...: sets EMU_URL (what GITHUB_API_URL gets) and EMU_BASE (control).
start_emulator() {
	local name=$1
	shift
	local args=(-listen 127.0.0.1:0 -repo "$OWNER/$NAME" -token "$TOKEN" "$@")
	[[ -f $SPEC_FILE ]] && args+=(-spec "$SPEC_FILE")
	"$EMU_BIN" "${args[@]}" >"$TMP/ghemu-$name.out" 2>"$TMP/ghemu-$name.err" 9>&- &
	EMU_PIDS+=($!)
	local i
	for i in $(seq 1 100); do
		EMU_URL=$(head -1 "$TMP/ghemu-$name.out" 2>/dev/null || true)
		[[ -n $EMU_URL ]] && break
		kill -0 "${EMU_PIDS[-1]}" 2>/dev/null || die "emulator $name exited: $(cat "$TMP/ghemu-$name.err")"
		sleep 0.1
	done
	[[ -n $EMU_URL ]] || die "emulator $name printed no URL in 10 s"
	EMU_BASE=$(sed -E 's,^(https?://[^/]+).*,\1,' <<<"$EMU_URL")
}
emu() { curl -fsS "$EMU_BASE/_emulator/$1"; }

# ---------------------------------------------------------------------------------------------
# 8. Running the action as the runner does (actions/runner ContainerActionHandler):
#    docker run --workdir /github/workspace --rm -e INPUT_… -e GITHUB_… -e HOME=/github/home
#      -v _temp/_github_home:/github/home -v _temp/_github_workflow:/github/workflow
#      -v _temp/_runner_file_commands:/github/file_commands -v $GITHUB_WORKSPACE:/github/workspace
#      IMAGE <runs.args of action.yml>
#    Every input declared in action.yml is set, to its default or "" (the runner does that);
#    names are upper-cased with spaces turned into _, hyphens kept: INPUT_GITHUB-TOKEN.
# ---------------------------------------------------------------------------------------------
ACTION_YML="$SRC/action.yml"
[[ -f $ACTION_YML ]] || ACTION_YML="$SRC/action.yaml"
[[ -f $ACTION_YML ]] || die "no action.yml"
# input<TAB>default (YAML subset used by action.yml: block mappings, plain or quoted scalars).
awk '
	function unq(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
		if (s ~ /^".*"$/ || s ~ /^'\''.*'\''$/) s = substr(s, 2, length(s) - 2); return s }
	/^[^ \t#]/ { sect = $0; sub(/:.*/, "", sect); next }
	sect == "inputs" && /^  [^ #][^:]*:[ \t]*$/ { name = $0; sub(/^  /, "", name); sub(/:.*/, "", name); order[++n] = name; def[name] = ""; next }
	sect == "inputs" && /^    default:/ { v = $0; sub(/^    default:/, "", v); def[name] = unq(v); next }
	END { for (i = 1; i <= n; i++) printf "%s\t%s\n", order[i], def[order[i]] }
' "$ACTION_YML" >"$TMP/inputs.tsv"
awk '
	/^[^ \t#]/ { sect = $0; sub(/:.*/, "", sect); inargs = 0; next }
	sect == "runs" && /^  args:/ { inargs = 1; next }
	sect == "runs" && inargs && /^    - / { a = $0; sub(/^    - /, "", a); gsub(/^["'\'']|["'\'']$/, "", a); print a; next }
	sect == "runs" && /^  [^ ]/ { inargs = 0 }
' "$ACTION_YML" >"$TMP/args.txt"
mapfile -t RUN_ARGS <"$TMP/args.txt"
action_ok() { test -s "$TMP/inputs.tsv" && grep -qE '^  image: *["'\'']?Dockerfile' "$ACTION_YML"; }
check_true "action.yml declares inputs ($(wc -l <"$TMP/inputs.tsv")) and runs: using: docker, image: Dockerfile" \
	"could not read inputs or runs.image from $ACTION_YML" action_ok

# Suites: fixtures/<suite>/ with traces.*, tasks.*, pairs.* (or scholar.* + auditor.*).
suite_inputs() { # suite -> lines "input=relative path"
	local s=$1 k f
	for k in traces tasks pairs scholar auditor; do
		f=$(cd "$SRC/fixtures" && ls -1 "$s/$k".json* 2>/dev/null | head -1 || true)
		[[ -z $f ]] || printf '%s=%s\n' "$k" "$f"
	done
}

RUN_N=0
# run_action NAME EVENT SUITE [input=value...]: one step of a job. Sets RUN_DIR, RUN_RC, RUN_OUT,
# RUN_SUMMARY, RUN_STDOUT, RUN_STDERR. RUN_SHA, RUN_ID and RUN_ATTEMPT, when set, fix the commit
# and the workflow run (a re-run keeps both and counts attempts).
run_action() {
	local name=$1 event=$2 suite=$3
	shift 3
	RUN_N=$((RUN_N + 1))
	RUN_DIR="$TMP/run$RUN_N-$name"
	local temp="$RUN_DIR/_temp" ws="$RUN_DIR/workspace"
	mkdir -p "$temp/_github_home" "$temp/_github_workflow" "$temp/_runner_file_commands" "$ws"
	cp -a "$SRC/fixtures/." "$ws/"
	local guid
	guid=$(cat /proc/sys/kernel/random/uuid)
	local fc="$temp/_runner_file_commands"
	for f in add_path set_env set_output save_state step_summary; do : >"$fc/${f}_$guid"; done
	RUN_OUT="$fc/set_output_$guid" RUN_SUMMARY="$fc/step_summary_$guid"
	local sha before
	sha=${RUN_SHA:-$(printf '%s' "$name$RUN_N" | sha1sum | cut -c1-40)}
	before=$(printf 'base%s' "$PR" | sha1sum | cut -c1-40)
	sed -e "s|@PR@|$PR|g" -e "s|@OWNER@|$OWNER|g" -e "s|@NAME@|$NAME|g" -e "s|@SHA@|$sha|g" \
		-e "s|@BEFORE@|$before|g" -e "s|@API@|${EMU_URL:-https://api.github.com}|g" \
		-e "s|@SERVER@|https://github.com|g" "$HERE/events/$event.json" >"$temp/_github_workflow/event.json"

	declare -A inputs=()
	local line k v
	while IFS=$'\t' read -r k v; do
		[[ $v == '${{ github.token }}' ]] && v=$TOKEN
		inputs[$k]=$v
	done <"$TMP/inputs.tsv"
	while IFS= read -r line; do inputs[${line%%=*}]=${line#*=}; done < <(suite_inputs "$suite")
	for line in "$@"; do inputs[${line%%=*}]=${line#*=}; done

	local env=(
		-e CI=true -e GITHUB_ACTIONS=true -e HOME=/github/home
		-e GITHUB_WORKSPACE=/github/workspace -e GITHUB_EVENT_PATH=/github/workflow/event.json
		-e "GITHUB_EVENT_NAME=$event" -e "GITHUB_REPOSITORY=$OWNER/$NAME" -e "GITHUB_REPOSITORY_OWNER=$OWNER"
		-e "GITHUB_REPOSITORY_ID=700000001" -e "GITHUB_REPOSITORY_OWNER_ID=9919"
		-e "GITHUB_API_URL=${EMU_URL:-http://127.0.0.1:9}" -e "GITHUB_GRAPHQL_URL=${EMU_URL:-http://127.0.0.1:9}/graphql"
		-e GITHUB_SERVER_URL=https://github.com -e "GITHUB_SHA=$sha" -e GITHUB_ACTOR=octocat -e GITHUB_ACTOR_ID=583231
		-e GITHUB_TRIGGERING_ACTOR=octocat -e GITHUB_WORKFLOW=agents -e GITHUB_WORKFLOW_REF="$OWNER/$NAME/.github/workflows/agents.yml@refs/heads/main"
		-e GITHUB_JOB=gate -e GITHUB_ACTION=__self -e GITHUB_ACTION_REPOSITORY= -e GITHUB_ACTION_REF=
		-e "GITHUB_RUN_ID=${RUN_ID:-$((9000000000 + RUN_N))}" -e GITHUB_RUN_NUMBER=42 -e "GITHUB_RUN_ATTEMPT=${RUN_ATTEMPT:-1}"
		-e GITHUB_RETENTION_DAYS=90 -e "GITHUB_OUTPUT=/github/file_commands/set_output_$guid"
		-e "GITHUB_STEP_SUMMARY=/github/file_commands/step_summary_$guid"
		-e "GITHUB_ENV=/github/file_commands/set_env_$guid" -e "GITHUB_PATH=/github/file_commands/add_path_$guid"
		-e "GITHUB_STATE=/github/file_commands/save_state_$guid"
		-e RUNNER_OS=Linux -e RUNNER_ARCH=X64 -e "RUNNER_NAME=GitHub Actions 1" -e RUNNER_ENVIRONMENT=github-hosted
		-e RUNNER_TEMP=/home/runner/work/_temp -e RUNNER_TOOL_CACHE=/opt/hostedtoolcache -e RUNNER_WORKSPACE=/home/runner/work/$NAME
	)
	if [[ $event == pull_request ]]; then
		env+=(-e "GITHUB_REF=refs/pull/$PR/merge" -e GITHUB_REF_NAME="$PR/merge" -e GITHUB_REF_TYPE=branch
			-e GITHUB_HEAD_REF=agent-prompt-v2 -e GITHUB_BASE_REF=main)
	else
		env+=(-e GITHUB_REF=refs/heads/main -e GITHUB_REF_NAME=main -e GITHUB_REF_TYPE=branch -e GITHUB_HEAD_REF= -e GITHUB_BASE_REF=)
	fi
	for k in "${!inputs[@]}"; do env+=(-e "INPUT_$(tr 'a-z ' 'A-Z_' <<<"$k")=${inputs[$k]}"); done

	RUN_STDOUT="$RUN_DIR/stdout" RUN_STDERR="$RUN_DIR/stderr"
	RUN_RC=0
	timeout 120 podman run --rm --name "agentgate-ct-$$-$RUN_N" --network host --workdir /github/workspace \
		"${env[@]}" \
		-v "$temp/_github_home:/github/home" -v "$temp/_github_workflow:/github/workflow" \
		-v "$temp/_runner_file_commands:/github/file_commands" -v "$ws:/github/workspace" \
		"$IMAGE" "${RUN_ARGS[@]}" >"$RUN_STDOUT" 2>"$RUN_STDERR" || RUN_RC=$?
}

# outputs FILE: the step outputs as key=value lines (both `k=v` and `k<<DELIM … DELIM` forms;
# newlines inside a value shown as \n).
outputs() {
	awk '
		inb { if ($0 == d) { inb = 0; print k "=" v; next } v = (first ? $0 : v "\\n" $0); first = 0; next }
		/^[A-Za-z0-9_-]+<</ { k = substr($0, 1, index($0, "<<") - 1); d = substr($0, index($0, "<<") + 2); inb = 1; v = ""; first = 1; next }
		/^[A-Za-z0-9_-]+=/ { print }
	' "$1"
}
output() { outputs "$1" | awk -v k="$2" 'index($0, k "=") == 1 {v = substr($0, length(k) + 2)} END {print v}'; }
has_output() { local all; all=$(outputs "$1"); grep -q "^$2=" <<<"$all"; }
# Predicates for check_true (no `| grep -q`: under pipefail an early exit of grep fails the pipe).
summary_ok() { grep -q "$1" "$RUN_SUMMARY" && grep -q '^|' "$RUN_SUMMARY" && test "$(stat -c %s "$RUN_SUMMARY")" -lt 1048576; }
# The token may appear only in an ::add-mask:: command, which the runner consumes (never shows).
no_token() { local t; t=$(grep -vh '^::add-mask::' "$@" || true); ! grep -qF "$TOKEN" <<<"$t"; }
first_body_has() { local b; b=$(jq -r '.[0].body' <<<"$1"); grep -q "$2" <<<"$b"; }
bodies_lack_token() { local b; b=$(jq -r '.[].body' <<<"$1"); ! grep -qF "$TOKEN" <<<"$b"; }
url_names() { [[ -n $2 && $1 == *"$2"* ]]; }
# show_run: the container's output, for a failed check.
show_run() {
	printf '    --- exit %s; stdout (tail) ---\n' "$RUN_RC"
	tail -15 "$RUN_STDOUT" | sed 's/^/    /'
	printf '    --- stderr (tail) ---\n'
	tail -15 "$RUN_STDERR" | sed 's/^/    /'
}

# Requests recorded since the mark, as JSON.
req_mark() { REQ_BEFORE=$(emu requests | jq 'map(.n) | max // 0'); }
reqs_since() { emu requests | jq --argjson n "$REQ_BEFORE" '[.[] | select(.n > $n)]'; }
count_reqs() { # JSON METHOD PATH-REGEX
	jq --arg m "$2" --arg p "$3" '[.[] | select(.method == $m and (.path | test($p)))] | length' <<<"$1"
}
writes_of() { jq -c '[.[] | select(.method != "GET" and .method != "HEAD") | "\(.method) \(.path) \(.status)"]' <<<"$1"; }
pr_comments() { emu comments | jq --argjson pr "$PR" '[.[] | select(.issue == $pr)]'; }

# Checks shared by every run of a suite: exit code, outputs, summary, annotations, no token leak.
check_run() { # LABEL WANT_RC WANT_VERDICT
	local label=$1 want_rc=$2 want_verdict=$3 before_failed=$FAILED
	check "$label: exit code" "$want_rc" "$RUN_RC"
	check "$label: output verdict" "$want_verdict" "$(output "$RUN_OUT" verdict)"
	local missing="" o
	for o in traces-total traces-failed traces-warned rcs percent-agreement kappa abstain-rate report-json; do
		has_output "$RUN_OUT" "$o" || missing+=" $o"
	done
	check "$label: outputs traces-total … report-json all set" "" "${missing# }"
	local rj
	rj=$(output "$RUN_OUT" report-json)
	if [[ -n $rj && -f "$RUN_DIR/workspace/$rj" ]]; then
		check "$label: report-json ($rj) says the same verdict" "$want_verdict" "$(jq -r .verdict "$RUN_DIR/workspace/$rj" 2>&1)"
	else
		bad "$label: report-json names a file in the workspace" "output report-json='$rj', no such file under /github/workspace"
	fi
	local summary_bytes
	summary_bytes=$(stat -c %s "$RUN_SUMMARY")
	check_true "$label: job summary holds the report ($summary_bytes bytes, verdict $want_verdict, a table)" \
		"summary: $(head -c 300 "$RUN_SUMMARY")" summary_ok "$want_verdict"
	local nerr
	nerr=$(grep -c '^::error' "$RUN_STDOUT" || true)
	if [[ $want_verdict == FAIL ]]; then
		check_true "$label: 1 to 10 ::error annotations ($nerr)" "got $nerr" test "$nerr" -ge 1 -a "$nerr" -le 10
	else
		check "$label: no ::error annotations" 0 "$nerr"
	fi
	check_true "$label: the token is printed nowhere (but in ::add-mask::)" "the token appears in stdout, stderr, outputs or summary" \
		no_token "$RUN_STDOUT" "$RUN_STDERR" "$RUN_OUT" "$RUN_SUMMARY"
	((FAILED == before_failed)) || show_run
}

# ---------------------------------------------------------------------------------------------
# 9. Scenarios.
# ---------------------------------------------------------------------------------------------
[[ -d $SRC/fixtures/pass && -d $SRC/fixtures/fail ]] || die "fixtures/pass and fixtures/fail are needed"
[[ -n $(suite_inputs pass) ]] || die "fixtures/pass has no traces.*, tasks.*, pairs.* files"

if [[ -n $EMU_BIN ]]; then
	start_emulator main -installation
	say "pull request #$PR, GITHUB_TOKEN-like installation token, emulator $EMU_URL$([[ -f $SPEC_FILE ]] && echo ' (checked against the OpenAPI description)')"

	# Run 1: a passing suite on the PR: one comment is created.
	req_mark
	run_action pr-pass pull_request pass
	check_run "PR, pass suite" 0 PASS
	R=$(reqs_since)
	check "PR, pass suite: comments created" 1 "$(count_reqs "$R" POST "^/repos/$OWNER/$NAME/issues/$PR/comments$")"
	check "PR, pass suite: comments edited" 0 "$(count_reqs "$R" PATCH "^/repos/$OWNER/$NAME/issues/comments/")"
	C=$(pr_comments)
	check "PR, pass suite: comments on the PR" 1 "$(jq length <<<"$C")"
	CID=$(jq '.[0].id // empty' <<<"$C")
	check_true "PR, pass suite: the comment is the report (PASS)" "body: $(jq -r '.[0].body' <<<"$C" | head -c 300)" \
		first_body_has "$C" PASS
	url=$(output "$RUN_OUT" comment-url)
	check_true "PR, pass suite: output comment-url names the comment ($url)" "expected a URL ending in $CID" \
		url_names "$url" "$CID"

	# Run 2: the next push to the PR fails the gate: the same comment is edited, none created.
	req_mark
	RUN_SHA=8f14e45fceea167a5a36dedd4bea2543a0b1c7d2 RUN_ID=9000000102 run_action pr-fail pull_request fail
	check_run "PR, fail suite" 2 FAIL
	R=$(reqs_since)
	check "PR, fail suite: comments created" 0 "$(count_reqs "$R" POST "^/repos/$OWNER/$NAME/issues/$PR/comments$")"
	check "PR, fail suite: edits of comment $CID" 1 "$(count_reqs "$R" PATCH "^/repos/$OWNER/$NAME/issues/comments/$CID$")"
	C=$(pr_comments)
	check "PR, fail suite: comments on the PR (still one, same id)" "1 $CID" "$(jq -r '"\(length) \(.[0].id)"' <<<"$C")"
	check_true "PR, fail suite: the comment now says FAIL" "body: $(jq -r '.[0].body' <<<"$C" | head -c 300)" \
		first_body_has "$C" FAIL
	body_len=$(jq -r '.[0].body | length' <<<"$C")
	check_true "PR, fail suite: comment body under 65,536 characters ($body_len)" "got $body_len" test "$body_len" -lt 65536
	check_true "PR, fail suite: the token is in no comment" "token found in a comment body" \
		bodies_lack_token "$C"

	# Run 3: a re-run of the same job: nothing changed, so nothing is written.
	req_mark
	RUN_SHA=8f14e45fceea167a5a36dedd4bea2543a0b1c7d2 RUN_ID=9000000102 RUN_ATTEMPT=2 run_action pr-rerun pull_request fail
	check "PR, re-run: exit code" 2 "$RUN_RC"
	R=$(reqs_since)
	check "PR, re-run: no write (comment unchanged)" "[]" "$(writes_of "$R")"
	check "PR, re-run: comments on the PR" 1 "$(pr_comments | jq length)"

	# Run 4: a push to main: summary only, no comment.
	req_mark
	run_action push-pass push pass
	check_run "push, pass suite" 0 PASS
	R=$(reqs_since)
	check "push: no write to GitHub" "[]" "$(writes_of "$R")"
	check "push: no request about comments" 0 "$(jq '[.[] | select(.path | test("/comments"))] | length' <<<"$R")"

	if [[ -f $SPEC_FILE ]]; then
		check "requests and responses conform to GitHub's OpenAPI description" "[]" "$(emu violations | jq -c .)"
	else
		skip "OpenAPI conformance of the requests" "test/github/node_modules not installed (npm ci in test/github)"
	fi

	# A fork's pull request: read-only token. The gate's verdict stands, the summary says why and how.
	start_emulator fork -installation -read-only
	req_mark
	run_action fork-pass pull_request pass
	check_run "fork PR (read-only token), pass suite" 0 PASS
	check "fork PR: no comment stored" 0 "$(pr_comments | jq length)"
	check_true "fork PR: the summary explains the workflow_run way" "no 'workflow_run' in the summary" \
		grep -q workflow_run "$RUN_SUMMARY"

	# GitHub Enterprise Server: GITHUB_API_URL is https://HOST/api/v3.
	start_emulator ghes -installation -prefix /api/v3
	req_mark
	run_action ghes-fail pull_request fail
	check "GHES (GITHUB_API_URL …/api/v3), fail suite: exit code" 2 "$RUN_RC"
	R=$(reqs_since)
	check "GHES: every request under /api/v3" 0 "$(jq '[.[] | select(.full_path | startswith("/api/v3/") | not)] | length' <<<"$R")"
	check "GHES: one comment on the PR" 1 "$(pr_comments | jq length)"
else
	say "the GitHub emulator (test/ghemu/cmd/ghemu) is not there yet: runs without comments"
	for s in "PR comment created once" "PR comment edited in place" "re-run writes nothing" "push: no comment" "fork PR" "GHES"; do
		skip "$s" "no emulator"
	done
	run_action pr-pass pull_request pass comment=false
	check_run "PR, pass suite (comment: false)" 0 PASS
	run_action pr-fail pull_request fail comment=false
	check_run "PR, fail suite (comment: false)" 2 FAIL
	run_action push-pass push pass
	check_run "push, pass suite" 0 PASS
fi

# ---------------------------------------------------------------------------------------------
# 10. Figures and verdict.
# ---------------------------------------------------------------------------------------------
mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1000000}'; }
say "image $IMAGE: $(mb "$IMAGE_SIZE") (binary $(mb "$BIN_SIZE")), build $((BUILD_MS / 1000)).$(((BUILD_MS % 1000) / 100)) s, storage $driver"
ms() { awk -v u="$1" 'BEGIN {printf "%.1f ms", u / 1000}'; }
say "start (median of 5): agentgate --version $(ms "$START_BIN_US") (/bin/true $(ms "$START_TRUE_US")); podman run --rm IMAGE --version $(ms "$START_RUN_US")"
podman image prune -f >/dev/null 2>&1 || true # intermediate layers: the Go build cache keeps builds fast
say "took $(($(date +%s) - t_start)) s"
if ((FAILED)); then
	say "failed checks:"
	printf '  - %s\n' "${FAILURES[@]}"
fi
if ((SKIPPED)); then
	echo "container: $PASSED passed, $FAILED failed, $SKIPPED skipped"
else
	echo "container: $PASSED passed, $FAILED failed"
fi
((FAILED == 0))
