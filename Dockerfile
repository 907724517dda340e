# agentgate: the GitHub Action's image (action.yml: `runs: using: docker, image: Dockerfile`) and
# the CLI's container. One static binary on an empty base: no shell, no package manager, no USER
# (actions run as root and must be able to write to the mounted workspace and file commands).
#
#   docker build -t agentgate .
#   docker run --rm -v "$PWD:/work" -w /work agentgate gate --traces 'runs/*.jsonl'
#
# test/container/run.sh builds this file unchanged and runs the image as the GitHub runner does.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Static binary; go.mod/go.sum are the only source of dependency versions (-mod=readonly), and no
# VCS stamping (.git is not in the context), so the same commit builds the same binary.
ENV CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false"

# Dependencies first: this layer is reused until go.mod or go.sum change. `go mod verify` checks the
# module cache against go.sum, also when a builder mounts a pre-filled cache.
COPY go.mod go.sum ./
RUN go mod download && go mod verify

COPY . .
# `agentgate --version` prints VERSION: `docker build --build-arg VERSION=v1.2.3 .` for a release.
ARG VERSION=dev
RUN go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /agentgate ./cmd/agentgate

FROM scratch
# CA roots for HTTPS to api.github.com or a GitHub Enterprise Server (GITHUB_API_URL).
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /agentgate /agentgate
ENTRYPOINT ["/agentgate"]
CMD ["gate"]
