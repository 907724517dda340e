#!/usr/bin/env bash
# scripts/release.sh: build and push the action's image for a release, and pin action.yml to it.
#
#   scripts/release.sh [options] VERSION REPOSITORY [-- BUILD-FLAGS...]
#   scripts/release.sh --engine docker --platforms linux/amd64,linux/arm64 v1.4.2 ghcr.io/acme/agentgate
#
# 1. Builds the Dockerfile for every platform (with --build-arg VERSION=VERSION, so that
#    `agentgate --version` names the release) into one multi-platform image.
# 2. Pushes it as REPOSITORY:VERSION and REPOSITORY:vMAJOR (not vMAJOR for a pre-release such
#    as v2.0.0-rc.1), and reads the digest the registry
#    gives the pushed manifest (list).
# 3. Pulls REPOSITORY@DIGEST and runs `--version` in it: the pushed image must say VERSION.
# 4. Rewrites the `image:` line under `runs:` in action.yml (in place) to
#      image: docker://REPOSITORY:VERSION@sha256:…
#    so that a user's step pulls that exact image instead of building the Dockerfile (the tag is
#    for people; the runner pulls by the digest). The pattern of reviewdog/action-actionlint and
#    super-linter. The release workflow (.github/workflows/release.yml) commits the result under
#    the release tag; main keeps `image: Dockerfile`.
#
# The last line on stdout is the pinned reference, REPOSITORY:VERSION@sha256:….
#
# Options:
#   --engine docker|podman   docker: buildx with --push (CI); podman: a manifest list pushed with
#                            `podman manifest push --all` (the offline test, test/container/release.sh)
#   --platforms LIST         comma-separated (default linux/amd64,linux/arm64)
#   --insecure               podman only: a registry over plain HTTP (--tls-verify=false)
#   --action FILE            the action metadata to rewrite (default action.yml beside this folder)
#   --context DIR            the build context (default the repository root)
#   --no-verify              skip step 3
# BUILD-FLAGS after `--` are passed to the build command as they are.
#
# Exit status: 0 released, 1 a step failed, 3 bad usage.

set -Eeuo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
engine=docker platforms=linux/amd64,linux/arm64 insecure=0 verify=1
action="$root/action.yml" context="$root"

usage() {
	sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
	exit 3
}
err() {
	printf 'release: %s\n' "$*" >&2
	exit 1
}

args=()
while (($#)); do
	case $1 in
	--engine) engine=${2:?}; shift 2 ;;
	--platforms) platforms=${2:?}; shift 2 ;;
	--insecure) insecure=1; shift ;;
	--action) action=${2:?}; shift 2 ;;
	--context) context=${2:?}; shift 2 ;;
	--no-verify) verify=0; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) printf 'release: unknown option %s\n' "$1" >&2; exit 3 ;;
	*) args+=("$1"); shift ;;
	esac
done
build_flags=("$@")
((${#args[@]} == 2)) || usage
version=${args[0]} repo=${args[1]}

# A release is vMAJOR.MINOR.PATCH, optionally with a pre-release suffix (v1.4.2, v2.0.0-rc.1).
[[ $version =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	{ printf 'release: version %q is not vMAJOR.MINOR.PATCH\n' "$version" >&2; exit 3; }
major="v${BASH_REMATCH[1]}"
# A pre-release (v2.0.0-rc.1) gets its own tag only: vMAJOR keeps naming the last release.
tags=("$version" "$major")
[[ -z ${BASH_REMATCH[2]} ]] || tags=("$version")
# Registry paths are lower case (GitHub owners need not be).
[[ $repo =~ ^[a-z0-9.:-]+(/[a-z0-9._-]+)+$ ]] ||
	{ printf 'release: repository %q is not a lower-case registry path (host/owner/name)\n' "$repo" >&2; exit 3; }
[[ $engine == docker || $engine == podman ]] || { printf 'release: --engine must be docker or podman\n' >&2; exit 3; }
[[ -f $action ]] || err "no $action"
[[ -f $context/Dockerfile ]] || err "no Dockerfile in $context"
# The one line to rewrite: `  image: …` in the top-level runs: block.
image_lines=$(awk '/^[^ #]/ {sect = $0} sect ~ /^runs:/ && /^  image:/ {n++} END {print n + 0}' "$action")
((image_lines == 1)) || err "$action: expected one 'image:' line under 'runs:', found $image_lines"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { printf 'release: %s\n' "$*" >&2; }

# ---------------------------------------------------------------------------------------------
# 1 and 2: build and push; digest = the registry's digest of the pushed manifest (list).
# ---------------------------------------------------------------------------------------------
say "building $repo:$version ($platforms) with $engine"
case $engine in
docker)
	((insecure == 0)) || err "--insecure is for --engine podman (a local test registry)"
	tag_flags=()
	for t in "${tags[@]}"; do tag_flags+=(--tag "$repo:$t"); done
	docker buildx build --platform "$platforms" --build-arg "VERSION=$version" "${tag_flags[@]}" --push \
		--metadata-file "$work/metadata.json" "${build_flags[@]}" "$context" >&2
	digest=$(jq -r '."containerimage.digest" // empty' "$work/metadata.json")
	;;
podman)
	tls=()
	((insecure)) && tls=(--tls-verify=false)
	list="localhost/agentgate-release:$version"
	podman manifest rm "$list" >/dev/null 2>&1 || true
	podman build --platform "$platforms" --build-arg "VERSION=$version" --manifest "$list" \
		"${build_flags[@]}" -f "$context/Dockerfile" "$context" >&2
	for t in "${tags[@]}"; do
		podman manifest push --all "${tls[@]}" --digestfile "$work/digest-$t" "$list" "docker://$repo:$t" >&2
	done
	cmp -s "$work/digest-$version" "$work/digest-${tags[-1]}" || err "the tags were pushed with different digests"
	digest=$(cat "$work/digest-$version")
	;;
esac
[[ $digest =~ ^sha256:[0-9a-f]{64}$ ]] || err "no digest for the pushed image (got '$digest')"
ref="$repo:$version@$digest"
say "pushed $(printf "$repo:%s " "${tags[@]}")as $digest"

# ---------------------------------------------------------------------------------------------
# 3: the image the digest names runs, and says the release's version.
# ---------------------------------------------------------------------------------------------
if ((verify)); then
	if [[ $engine == podman ]]; then
		podman pull "${tls[@]}" "$ref" >&2
	fi
	got=$("$engine" run --rm "$ref" --version) || err "$ref does not run"
	[[ $got == "agentgate $version" ]] || err "$ref --version says '$got', want 'agentgate $version'"
	say "$ref runs: $got"
fi

# ---------------------------------------------------------------------------------------------
# 4: pin action.yml.
# ---------------------------------------------------------------------------------------------
awk -v img="docker://$ref" '
	/^[^ #]/ {sect = $0}
	sect ~ /^runs:/ && /^  image:/ {print "  image: " img; next}
	{print}
' "$action" >"$work/action.yml"
cat "$work/action.yml" >"$action"
say "$action: runs.image is docker://$ref"
printf '%s\n' "$ref"
