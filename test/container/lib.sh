# shellcheck shell=bash
# test/container/lib.sh: what the container tests share (run.sh, release.sh), sourced by them.
# The caller sets ROOT, CACHE, MIRROR and TAG (the name its messages start with), and an EXIT trap
# that removes $TMP when set. container_setup installs the tools, configures podman under $CACHE
# (holding $CACHE/lock, so that container tests on one machine take turns), makes TMP, copies the
# work tree to $SRC and makes the stand-in for the Dockerfile's golang builder image.

# Bump when the stand-in recipe below changes: the builder image and rootfs tarball are remade.
STANDIN_RECIPE=3
PASSED=0 FAILED=0 SKIPPED=0
FAILURES=()

say() { printf '%s\n' "$TAG: $*"; }
die() {
	printf '%s\n' "$TAG: setup failed: $*" >&2
	exit 2
}
ok() {
	PASSED=$((PASSED + 1))
	printf '  ok    %s\n' "$1"
}
bad() {
	FAILED=$((FAILED + 1))
	FAILURES+=("$1")
	printf '  FAIL  %s\n' "$1"
	[[ -z ${2:-} ]] || printf '%s\n' "$2" | sed 's/^/          /'
}
skip() {
	SKIPPED=$((SKIPPED + 1))
	printf '  skip  %s (%s)\n' "$1" "$2"
}
# check NAME EXPECTED GOT: equality, with both sides shown on failure.
check() {
	if [[ "$2" == "$3" ]]; then ok "$1"; else bad "$1" "expected: $2"$'\n'"got:      $3"; fi
}
# check_true NAME DETAIL COMMAND...: the command succeeds.
check_true() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then ok "$name"; else bad "$name" "$detail"; fi
}
ms_now() { date +%s%3N; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) exit 1; print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

container_setup() {
# ---------------------------------------------------------------------------------------------
# 1. Tools: podman, runc, debootstrap, jq, curl; Go for the module cache, the emulator and the
#    reproducibility check.
# ---------------------------------------------------------------------------------------------
[[ -d /usr/local/go/bin ]] && PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || die "go is not on PATH"

need=()
for t in podman:podman runc:runc debootstrap:debootstrap jq:jq curl:curl flock:util-linux; do
	command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
done
if ((${#need[@]})); then
	[[ $(id -u) == 0 ]] || die "missing ${need[*]}: run as root (or install them) so that apt-get can add them"
	say "installing ${need[*]} (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || die "apt-get update failed"
	apt-get install -y -qq "${need[@]}" ca-certificates uidmap >/dev/null ||
		die "apt-get install ${need[*]} failed"
fi
[[ $(id -u) == 0 ]] || die "run as root: the GitHub runner runs actions as root, and podman needs it here"

mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock -w 900 9 || die "another container test holds $CACHE/lock"

TMP=$(mktemp -d "/tmp/agentgate-$TAG.XXXXXX")

# ---------------------------------------------------------------------------------------------
# 2. Podman configuration of our own (storage under $CACHE, runc, cgroupfs, ulimits that work on
#    this machine class), so the run touches no system-wide podman state.
# ---------------------------------------------------------------------------------------------
driver=${AGENTGATE_CONTAINER_DRIVER:-}
if [[ -z $driver ]]; then
	probe="$CACHE/overlay-probe"
	rm -rf "$probe" && mkdir -p "$probe"/{l,u,w,m}
	if mount -t overlay overlay -o "lowerdir=$probe/l,upperdir=$probe/u,workdir=$probe/w" "$probe/m" 2>/dev/null; then
		umount "$probe/m"
		driver=overlay
	else
		driver=vfs
	fi
	rm -rf "$probe"
fi
CONF="$CACHE/conf"
mkdir -p "$CONF" "$CACHE/storage-$driver" "$CACHE/go-build"
cat >"$CONF/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$CACHE/events-$driver.log"
EOF
cat >"$CONF/storage-$driver.conf" <<EOF
[storage]
driver = "$driver"
graphroot = "$CACHE/storage-$driver"
runroot = "/run/agentgate-container/$(sha256sum <<<"$CACHE" | cut -c1-8)-$driver"
EOF
cat >"$CONF/registries.conf" <<'EOF'
unqualified-search-registries = ["docker.io"]
short-name-mode = "permissive"
EOF
export CONTAINERS_CONF="$CONF/containers.conf"
export CONTAINERS_STORAGE_CONF="$CONF/storage-$driver.conf"
export CONTAINERS_REGISTRIES_CONF="$CONF/registries.conf"
podman info >/dev/null 2>"$TMP/podman-info.err" || die "podman does not work here: $(tail -3 "$TMP/podman-info.err")"
say "podman $(podman version --format '{{.Client.Version}}'), storage $driver in $CACHE/storage-$driver"

# ---------------------------------------------------------------------------------------------
# 3. A snapshot of the work tree (others may be editing it): the build context, the fixtures and
#    the host build of the reproducibility check all come from this one copy.
# ---------------------------------------------------------------------------------------------
SRC="$TMP/src"
mkdir -p "$SRC"
tar -C "$ROOT" --exclude=./.git --exclude=node_modules -cf - . | tar -C "$SRC" -xf -
[[ -f $SRC/Dockerfile ]] || die "no Dockerfile in $ROOT"

# The builder stage's base image, read from the Dockerfile so that the stand-in follows it.
BASE=$(awk 'toupper($1) == "FROM" && $2 ~ /^golang:/ {print $2; exit}' "$SRC/Dockerfile")
[[ -n $BASE ]] || die "the Dockerfile has no 'FROM golang:…' builder stage"
BASE_REF="docker.io/library/$BASE"
go_version=$(go env GOVERSION) # go1.26.8
go_minor=$(sed -E 's/^go([0-9]+\.[0-9]+).*/\1/' <<<"$go_version")
base_tag=${BASE#golang:}
if [[ ${base_tag%%-*} != "$go_minor" ]]; then
	say "warning: the Dockerfile builds with $BASE but this machine's Go is $go_version: the stand-in carries $go_version"
fi

# ---------------------------------------------------------------------------------------------
# 4. The stand-in for $BASE: Debian bookworm (debootstrap minbase + ca-certificates, cached as a
#    tarball) + this machine's GOROOT at /usr/local/go, with the official image's environment.
#    GOPROXY=off and a build without network prove that nothing is fetched during the build.
# ---------------------------------------------------------------------------------------------
GOROOT=$(go env GOROOT)
standin_key="recipe$STANDIN_RECIPE-$go_version-$(sha256sum <<<"$MIRROR $GOROOT" | cut -c1-12)"
have_key=$(podman image inspect "$BASE_REF" --format '{{index .Labels "agentgate.standin"}}' 2>/dev/null || true)
t0=$(ms_now)
if [[ $have_key != "$standin_key" ]]; then
	rootfs_tar="$CACHE/bookworm-minbase-recipe$STANDIN_RECIPE.tar"
	if [[ ! -s $rootfs_tar ]]; then
		say "debootstrap bookworm (minbase + ca-certificates) from $MIRROR, once per machine"
		rootfs="$CACHE/rootfs.tmp"
		rm -rf "$rootfs"
		debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$MIRROR" >"$TMP/debootstrap.log" 2>&1 ||
			die "debootstrap failed: $(tail -5 "$TMP/debootstrap.log")"
		rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
		mkdir -p "$rootfs/go/bin" "$rootfs/go/src" "$rootfs/go/pkg/mod" "$rootfs/usr/local"
		chmod 1777 "$rootfs/go"
		tar --numeric-owner -C "$rootfs" -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
		rm -rf "$rootfs"
	fi
	say "making the stand-in $BASE_REF ($go_version from $GOROOT)"
	# A new stand-in invalidates every cached layer built on the old one: start storage afresh.
	podman rmi --all --force >/dev/null 2>&1 || true
	cp "$rootfs_tar" "$TMP/standin.tar"
	gr_parent=$(dirname "$GOROOT") gr_base=$(basename "$GOROOT")
	tar --numeric-owner -C "$gr_parent" -rf "$TMP/standin.tar" --exclude="$gr_base/test" \
		--transform "s,^$gr_base,usr/local/go," "$gr_base"
	podman import \
		--change 'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change "ENV GOLANG_VERSION=${go_version#go}" \
		--change 'ENV GOTOOLCHAIN=local' \
		--change 'ENV GOPATH=/go' \
		--change 'ENV GOPROXY=off' \
		--change 'WORKDIR /go' \
		--change "LABEL agentgate.standin=$standin_key" \
		"$TMP/standin.tar" "$BASE_REF" >"$TMP/import.log" 2>&1 || die "podman import failed: $(tail -3 "$TMP/import.log")"
	rm -f "$TMP/standin.tar"
	say "stand-in ready in $((($(ms_now) - t0) / 1000)) s"
else
	say "stand-in $BASE_REF cached ($standin_key)"
fi
}
