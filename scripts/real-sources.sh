#!/usr/bin/env bash
# scripts/real-sources.sh: fetch the real harness outputs the realsources tests read, at the
# commits test/realsources/sources.tsv pins, into OUT/<name>/ (git-ignored).
#
#   scripts/real-sources.sh [OUT]        (make real-sources; OUT defaults to .real-sources)
#
# These are runs other people's harnesses wrote, kept in public repositories: the project may
# not copy them, and its bare-machine CI cannot fetch them, so they are an opt-in suite
# (docs/development.md#real-sources): `make test-real-sources` fetches them and runs the tests
# built with `-tags realsources`; the repository's GitHub workflow runs it on every push.
#
# Each repository is cloned once from https://github.com/OWNER/NAME with blobs fetched only as
# needed. Offline, MIRRORS=<dir> clones OWNER/NAME from <dir>/OWNER+NAME (or its repo/ folder)
# instead, and git's url.<base>.insteadOf works as for scripts/reference-data.sh. Needs git.
# OUT is replaced only once every source was fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.real-sources}
table=test/realsources/sources.tsv

command -v git >/dev/null || { echo "real-sources: git is needed" >&2; exit 1; }

work=$(mktemp -d)
tmp="$out.tmp"
trap 'rm -rf "$work" "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp"
tmpabs=$(cd "$tmp" && pwd)

# clone REPO COMMIT: clones REPO once into $work (no checkout, blobs on demand), checks that
# it has COMMIT and prints the clone's path.
clone() {
	local dir="$work/${1//\//+}" url="https://github.com/$1"
	if [ -n "${MIRRORS:-}" ]; then
		url="$MIRRORS/${1//\//+}"
		[ -d "$url/repo" ] && url="$url/repo"
	fi
	if [ ! -d "$dir" ]; then
		echo "real-sources: cloning $url" >&2
		git clone --quiet --no-checkout --filter=blob:none "$url" "$dir" 2>"$work/clone.err" || {
			cat "$work/clone.err" >&2
			echo "real-sources: cannot clone $url (offline? see the insteadOf note in scripts/reference-data.sh)" >&2
			exit 1
		}
	fi
	# A commit only a pull request's ref reaches (refs/pull/N/head: a fork's results offered
	# upstream) is not cloned with the branches: fetch it by its id.
	git -C "$dir" cat-file -e "$2^{commit}" 2>/dev/null ||
		git -C "$dir" fetch --quiet --filter=blob:none origin "$2" 2>/dev/null || true
	git -C "$dir" cat-file -e "$2^{commit}" 2>/dev/null || {
		echo "real-sources: https://github.com/$1 has no commit $2" >&2
		exit 1
	}
	echo "$dir"
}

# Each row: name, repository, commit, path (a file or a folder), what it is. A folder is
# taken whole, its layout kept: OUT/<name>/<path>.
n=0
while IFS=$'\t' read -r name repo commit path what; do
	case "$name" in '' | '#'*) continue ;; esac
	case "$name" in *[!a-z0-9._-]*) echo "real-sources: $table: bad name $name" >&2; exit 1 ;; esac
	[ -n "$repo" ] && [ -n "$commit" ] && [ -n "$path" ] && [ -n "$what" ] || {
		echo "real-sources: $table: row $name needs repository, commit, path and what it is" >&2
		exit 1
	}
	dir=$(clone "$repo" "$commit")
	mkdir -p "$tmp/$name"
	git -C "$dir" --work-tree="$tmpabs/$name" checkout --quiet "$commit" -- "$path"
	n=$((n + 1))
done <"$table"

rm -rf "$out"
mv "$tmp" "$out"
echo "real-sources: fetched $n sources into $out" >&2
