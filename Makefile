# The commands CI runs (.ci/run) and a developer types. Tool versions are pinned here.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
ACTIONLINT  := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
GOBIN       := $(shell go env GOPATH)/bin

.PHONY: test testdata reference-data real-sources test-real-sources test-jsonv2 lint demo container release-test bench bench-million bench-go render

# The whole test suite: installs the npm test data (GitHub's OpenAPI description and real
# webhook payloads, used by the GitHub emulator tests), then runs every Go test.
test: testdata
	go test ./...

# The tests again on encoding/json's v2 implementation: every reader's error wording and
# positions are its own (internal/jsonscan), so nothing may change with it.
test-jsonv2: testdata
	GOEXPERIMENT=jsonv2 go test ./...

testdata:
	cd test/github && npm ci --no-audit --no-fund --loglevel=error

# The reference data the tests compare against, built from its public sources at pinned commits
# into .reference-data/ (git-ignored), for a clone without ../shared/reference-data beside it.
# Offline, git's url.<base>.insteadOf can answer the GitHub URLs from mirrors
# (scripts/reference-data.sh says how).
reference-data:
	bash scripts/reference-data.sh .reference-data

# Real harness outputs in public repositories, at the commits test/realsources/sources.tsv pins,
# fetched into .real-sources/ (git-ignored), and the tests that read them (built only with
# -tags realsources: the bare-machine CI cannot fetch them; docs/development.md#real-sources).
# MIRRORS=<dir> clones OWNER/NAME from <dir>/OWNER+NAME instead of github.com.
real-sources:
	bash scripts/real-sources.sh .real-sources

test-real-sources: real-sources
	go test -count=1 -tags realsources -run 'RealSource' ./...

# gofmt, go vet, staticcheck and actionlint (workflows and the local action's inputs).
lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	go vet ./...
	go vet -tags realsources ./...
	go install $(STATICCHECK)
	$(GOBIN)/staticcheck ./...
	go install $(ACTIONLINT)
	$(GOBIN)/actionlint
	# the CLI builds for a developer's laptop too (its tests use Unix FIFOs and run on Linux)
	GOOS=darwin go build -o /dev/null ./cmd/agentgate
	GOOS=windows go build -o /dev/null ./cmd/agentgate

# The gate on the bundled failing suite, as a newcomer's first look.
demo:
	go run ./cmd/agentgate gate --traces 'fixtures/fail/traces.jsonl' --tasks fixtures/fail/tasks.json --pairs fixtures/fail/pairs.jsonl --markdown agentgate-report.md

# The golden reports (entrypoint/testdata/render) as GitHub shows a PR comment: cmark-gfm,
# mermaid 11 and Chromium at 900 px, failing on a chart that does not render or cannot be
# seen, a table that scrolls sideways, or an escape shown literally; screenshots in .render/.
# Needs chromium, cmark-gfm and npm (scripts/render.sh says how), so not part of make test.
render:
	bash scripts/render.sh

# Build the Dockerfile and run the image as the GitHub runner does.
container:
	bash test/container/run.sh

# The release path offline: scripts/release.sh pushes to a registry on 127.0.0.1, the pinned
# action.yml is checked, and the image pulled by digest runs as the runner runs it.
release-test:
	bash test/container/release.sh

# The gate's CPU time and peak RSS against a program that only checks each line with
# encoding/json.Valid, and against an earlier commit, side by side in one run (test/benchcmp);
# with RS1=<a checkout of github.com/anand008186/RS-1>, RS-1's own evaluator beside them too.
# Then a million runs on one runner (test/benchcmp/million.sh, below).
bench:
	go run ./test/benchcmp $(if $(RS1),-rs1 $(RS1))
	sh test/benchcmp/million.sh $(BEFORE)

# A million runs on one runner: the gate, the comparison with a million-run baseline and the
# merge of 100 shards, each's wall time and peak RSS (docs/performance.md, "A million runs");
# BEFORE=<commit> measures agentgate at that commit beside it.
bench-million:
	sh test/benchcmp/million.sh $(BEFORE)

# Every Go benchmark of the repository.
bench-go:
	go test -run '^$$' -bench . -benchmem -count 5 ./...
