#!/bin/sh
# A million runs on one runner (docs/performance.md, "A million runs"): generates a million
# short runs (test/gensuite: three messages of about 40 bytes; 100 files, and another million
# for the pull request's side), then, with agentgate built from the working tree (and, given
# a commit as $1, built at that commit beside it), measures with /usr/bin/time -v, one after
# another: the gate over the million runs with its JSON report, the comparison of another
# million with that report as the baseline, and the merge of the reports of 100 shards of
# 10,000 runs. Prints wall time and peak RSS of each, and the report's size.
#
#   sh test/benchcmp/million.sh [COMMIT]      # make bench-million [BEFORE=COMMIT]
set -eu
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/before-src" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/now" ./cmd/agentgate
bins=now
if [ $# -gt 0 ]; then
	git worktree add --detach "$tmp/before-src" "$1" >/dev/null 2>&1
	(cd "$tmp/before-src" && go build -o "$tmp/before" ./cmd/agentgate)
	bins="before now"
fi
go run ./test/gensuite/cmd/gensuite -out "$tmp/base" -runs 1000000 -messages 3 -content 40 -files 100 -seed 1 | tail -1
go run ./test/gensuite/cmd/gensuite -out "$tmp/head" -runs 1000000 -messages 3 -content 40 -seed 2 | tail -1
measure() { # name, command...
	name=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$tmp/time"
	printf '%s: %s s, %s MB peak RSS\n' "$name" \
		"$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time")" \
		"$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time" | awk '{printf "%d", $1/1000}')"
}
for b in $bins; do
	bin=$tmp/$b
	mkdir -p "$tmp/$b-shards"
	measure "$b: gate, 1,000,000 runs" "$bin" gate --traces "$tmp/base/*.jsonl" --json "$tmp/$b-base.json" --fail-on never
	echo "$b: JSON report $(wc -c <"$tmp/$b-base.json") bytes"
	measure "$b: compared with a 1,000,000-run baseline" "$bin" gate --traces "$tmp/head/*.jsonl" --baseline "$tmp/$b-base.json" --json "$tmp/$b-head.json" --fail-on never
	for f in "$tmp"/base/traces-*.jsonl; do
		"$bin" gate --traces "$f" --json "$tmp/$b-shards/$(basename "$f" .jsonl).json" --fail-on never >/dev/null
	done
	measure "$b: merge of 100 shards of 10,000 runs" "$bin" merge --json "$tmp/$b-merged.json" --fail-on never "$tmp/$b-shards"/*.json
	rm -rf "$tmp/$b-shards" "$tmp/$b-base.json" "$tmp/$b-head.json" "$tmp/$b-merged.json"
done
