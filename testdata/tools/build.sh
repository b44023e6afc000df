#!/usr/bin/env bash
# Builds the real test control plane (kube-apiserver + etcd) and the pulumi CLI from
# the Go module proxy into a cache directory outside the repository, keyed by version
# and by the tools module's go.sum. Warm runs only check that the binaries exist.
#
# Usage: build.sh [--cached] [all|controlplane|pulumi|argocd|flux|opentofu|helm|versitygw|promtool]
#   all        every tool set, built concurrently when missing
#   --cached   never build: print what is cached; exit 3 when something is not
#
# Prints the location of each tool set on stdout (progress goes to stderr):
#   KUBEBUILDER_ASSETS=<dir with kube-apiserver and etcd>
#   DRIFTDECK_PULUMI=<path of the pulumi binary>
#   DRIFTDECK_ARGOCD=<path of the argocd multi-call binary (controller, repo-server)>
#   DRIFTDECK_REDIS=<path of redis-server, which the Argo CD components need>
#   DRIFTDECK_FLUX_DIR=<dir with Flux's source-controller, kustomize-controller and crds/>
#   DRIFTDECK_TOFU=<path of the tofu binary (OpenTofu), for real Terraform plans>
#   DRIFTDECK_HELM=<path of the helm binary, which the Argo CD repo-server runs for Helm sources>
#   DRIFTDECK_VERSITYGW=<path of versitygw, an S3 server for the s3 state backends>
#   DRIFTDECK_PROMTOOL=<path of promtool (Debian's prometheus), for the alert rules>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache_root=${DRIFTDECK_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/driftdeck/tools}
k8s_version=v1.37.2
pulumi_version=v3.274.1
# 3.3 is the newest Argo CD whose module builds from the proxy (later ones need an
# unpublished gitops-engine module).
argocd_version=v3.3.0
# 1.9.6 is the newest Flux whose controllers build with Go 1.26.
flux_version=v1.9.6
tofu_version=v1.10.10
# The helm the Argo CD repo-server runs, and the one driftdeck-render links: the same
# release, so a local render of a Helm source equals the repo-server's.
helm_version=v3.21.4
# An S3-compatible server for OpenTofu's s3 backend (its lockfile too) and
# Pulumi's s3:// state, without a cloud.
versitygw_version=v1.8.0

cached_only=false
if [[ ${1:-} == --cached ]]; then
	cached_only=true
	shift
fi
what=${1:-all}

log() { printf '[tools] %s\n' "$*" >&2; }

sum_key() { sha256sum "$1/go.sum" | cut -c1-12; }

control_plane_dir() { echo "$cache_root/controlplane-$k8s_version-$(sum_key "$here/testcontrolplane")"; }
pulumi_dir() { echo "$cache_root/pulumi-$pulumi_version-$(sum_key "$here/pulumicli")"; }
argocd_dir() { echo "$cache_root/argocd-$argocd_version-$(sum_key "$here/argocd")"; }
flux_dir() { echo "$cache_root/flux-$flux_version-$(sum_key "$here/flux")"; }
tofu_dir() { echo "$cache_root/opentofu-$tofu_version-$(sum_key "$here/opentofu")"; }
helm_dir() { echo "$cache_root/helm-$helm_version-$(sum_key "$here/helm")"; }
versitygw_dir() { echo "$cache_root/versitygw-$versitygw_version-$(sum_key "$here/versitygw")"; }

# with_lock DIR CMD...: runs CMD holding DIR.lock, so two builds of one tool (two
# checkouts, or make test twice) never write the same directory at once.
with_lock() {
	local lock=$1.lock
	shift
	mkdir -p "$(dirname "$lock")"
	if ! command -v flock >/dev/null; then
		"$@"
		return
	fi
	(
		flock -n 9 || { log "waiting for another build into $(dirname "$lock")"; flock 9; }
		"$@"
	) 9>"$lock"
}

# heartbeat NAME: prints a line every minute while a build runs, so a cold build
# does not look hung in CI logs. Prints its pid: kill it (TERM) when done.
heartbeat() {
	local name=$1
	(
		start=$SECONDS
		trap 'kill $nap 2>/dev/null; exit 0' TERM
		while :; do
			sleep 60 &
			nap=$!
			wait $nap
			log "still building $name ($(((SECONDS - start) / 60)) min so far)"
		done
	) >&2 &
	echo $!
}

compile_control_plane() {
	local tmp=$1 mod=$here/testcontrolplane start=$SECONDS
	local minor=${k8s_version#v1.}
	minor=${minor%%.*}
	local ld="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version"
	ld+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
	ld+=" -X k8s.io/component-base/version.gitTreeState=clean"
	ld+=" -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version"
	ld+=" -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
	(cd "$mod" && go build -trimpath -ldflags="$ld" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver) &&
		log "kube-apiserver built in $((SECONDS - start)) s; building etcd" &&
		(cd "$mod" && go build -trimpath -ldflags="-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
}

compile_pulumi() {
	local tmp=$1
	(cd "$here/pulumicli" && go build -trimpath \
		-ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$pulumi_version" \
		-o "$tmp/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
}

compile_argocd() {
	local tmp=$1
	(cd "$here/argocd" && go build -trimpath -ldflags "-s -w" -o "$tmp/argocd" github.com/argoproj/argo-cd/v3/cmd)
}

# compile_flux builds both controllers from the tools module. -mod=mod: its go.sum
# was tidied with -e, since a test-only dependency of source-controller is not served.
compile_flux() {
	local tmp=$1 start=$SECONDS
	(cd "$here/flux" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$tmp/source-controller" github.com/fluxcd/source-controller) &&
		log "source-controller built in $((SECONDS - start)) s; building kustomize-controller" &&
		(cd "$here/flux" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$tmp/kustomize-controller" github.com/fluxcd/kustomize-controller) &&
		flux_crds "$tmp"
}

# flux_crds copies the CRDs of both controllers' modules beside the binaries:
# the tests install exactly the definitions these controllers were built with.
flux_crds() {
	local out=$1/crds mod dir
	mkdir -p "$out"
	for mod in github.com/fluxcd/source-controller github.com/fluxcd/kustomize-controller; do
		dir=$(cd "$here/flux" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' "$mod") || return
		cp "$dir"/config/crd/bases/*.yaml "$out"/ || return
	done
	chmod 644 "$out"/*.yaml
}

# build NAME DIR COMPILE: runs COMPILE into DIR.partial and renames it to DIR
# when it succeeds, so DIR only ever holds complete binaries.
build() {
	local name=$1 out=$2 compile=$3 start=$SECONDS tmp=$2.partial beat rc=0
	rm -rf "$tmp" && mkdir -p "$tmp"
	beat=$(heartbeat "$name")
	"$compile" "$tmp" || rc=$?
	kill "$beat" 2>/dev/null || true
	if ((rc != 0)); then
		log "building $name failed"
		return $rc
	fi
	rm -rf "$out" && mv "$tmp" "$out"
	log "$name built in $((SECONDS - start)) s into $out"
}

build_control_plane() {
	local out=$1
	if [[ -x $out/kube-apiserver && -x $out/etcd ]]; then
		log "control plane $k8s_version cached in $out"
		return
	fi
	log "building kube-apiserver $k8s_version and etcd (cold: ~10 min on 2 idle cores)"
	build "the control plane" "$out" compile_control_plane
}

build_pulumi() {
	local out=$1
	if [[ -x $out/pulumi ]]; then
		log "pulumi $pulumi_version cached in $out"
		return
	fi
	log "building pulumi CLI $pulumi_version (cold: ~14 CPU-minutes)"
	build "the pulumi CLI" "$out" compile_pulumi
}

build_argocd() {
	local out=$1
	if [[ -x $out/argocd ]]; then
		log "argocd $argocd_version cached in $out"
		return
	fi
	log "building argocd $argocd_version (cold: ~8 min on 2 idle cores)"
	build "argocd" "$out" compile_argocd
}

# debian_tool finds a command, installing its Debian package when missing and
# allowed (root, not --cached), and prints VARIABLE=<its path>.
debian_tool() {
	local command=$1 package=$2 variable=$3 bin
	bin=$(type -P "$command" || true)
	if [[ -z $bin ]] && ! $cached_only && ((EUID == 0)) && command -v apt-get >/dev/null; then
		log "installing $command (Debian package $package)"
		{ apt-get install -y -q "$package" || { apt-get update -q && apt-get install -y -q "$package"; }; } >&2
		bin=$(type -P "$command" || true)
	fi
	[[ -n $bin ]] || { log "$command not found (apt-get install $package)"; return 3; }
	echo "$variable=$bin"
}

# The Argo CD components keep their cache in redis.
redis() { debian_tool redis-server redis-server DRIFTDECK_REDIS; }

# promtool checks and unit-tests the alert rules in deploy/ (about 8 s to install).
promtool() { debian_tool promtool prometheus DRIFTDECK_PROMTOOL; }

argocd() {
	local out
	out=$(argocd_dir)
	if $cached_only; then
		[[ -x $out/argocd ]] || { log "argocd $argocd_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_argocd "$out"
	fi
	echo "DRIFTDECK_ARGOCD=$out/argocd"
}

control_plane() {
	local out
	out=$(control_plane_dir)
	if $cached_only; then
		[[ -x $out/kube-apiserver && -x $out/etcd ]] || { log "control plane $k8s_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_control_plane "$out"
	fi
	echo "KUBEBUILDER_ASSETS=$out"
}

pulumi() {
	local out
	out=$(pulumi_dir)
	if $cached_only; then
		[[ -x $out/pulumi ]] || { log "pulumi $pulumi_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_pulumi "$out"
	fi
	echo "DRIFTDECK_PULUMI=$out/pulumi"
}

build_flux() {
	local out=$1
	if [[ -x $out/source-controller && -x $out/kustomize-controller && -d $out/crds ]]; then
		log "flux $flux_version cached in $out"
		return
	fi
	log "building flux source-controller and kustomize-controller $flux_version (cold: a few minutes each)"
	build "the flux controllers" "$out" compile_flux
}

flux() {
	local out
	out=$(flux_dir)
	if $cached_only; then
		[[ -x $out/source-controller && -x $out/kustomize-controller && -d $out/crds ]] ||
			{ log "flux $flux_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_flux "$out"
	fi
	echo "DRIFTDECK_FLUX_DIR=$out"
}

# OpenTofu's go.mod replaces hcl/v2 with opentofu's fork, so `go install` refuses it:
# the tools module repeats that replace. version.dev=no drops the "-dev" suffix.
compile_opentofu() {
	local tmp=$1
	(cd "$here/opentofu" && go build -trimpath \
		-ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
		-o "$tmp/tofu" github.com/opentofu/opentofu/cmd/tofu)
}

build_opentofu() {
	local out=$1
	if [[ -x $out/tofu ]]; then
		log "opentofu $tofu_version cached in $out"
		return
	fi
	log "building opentofu $tofu_version (cold: ~6 min on a busy 2-core machine)"
	build "opentofu" "$out" compile_opentofu
}

opentofu() {
	local out
	out=$(tofu_dir)
	if $cached_only; then
		[[ -x $out/tofu ]] || { log "opentofu $tofu_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_opentofu "$out"
	fi
	echo "DRIFTDECK_TOFU=$out/tofu"
}

compile_helm() {
	local tmp=$1
	(cd "$here/helm" && go build -trimpath \
		-ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version" \
		-o "$tmp/helm" helm.sh/helm/v3/cmd/helm)
}

build_helm() {
	local out=$1
	if [[ -x $out/helm ]]; then
		log "helm $helm_version cached in $out"
		return
	fi
	log "building helm $helm_version (cold: a few minutes)"
	build "helm" "$out" compile_helm
}

helm() {
	local out
	out=$(helm_dir)
	if $cached_only; then
		[[ -x $out/helm ]] || { log "helm $helm_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_helm "$out"
	fi
	echo "DRIFTDECK_HELM=$out/helm"
}

compile_versitygw() {
	local tmp=$1
	(cd "$here/versitygw" && go build -trimpath -ldflags "-s -w" \
		-o "$tmp/versitygw" github.com/versity/versitygw/cmd/versitygw)
}

build_versitygw() {
	local out=$1
	if [[ -x $out/versitygw ]]; then
		log "versitygw $versitygw_version cached in $out"
		return
	fi
	log "building versitygw $versitygw_version (cold: ~3.5 min on a busy 2-core machine)"
	build "versitygw" "$out" compile_versitygw
}

versitygw() {
	local out
	out=$(versitygw_dir)
	if $cached_only; then
		[[ -x $out/versitygw ]] || { log "versitygw $versitygw_version not built yet (expected in $out)"; return 3; }
	else
		with_lock "$out" build_versitygw "$out"
	fi
	echo "DRIFTDECK_VERSITYGW=$out/versitygw"
}

# every builds all tool sets at once: each build has long phases that use one
# core (downloads, links), which overlap well; peak memory is about 2.5 + 2 + 2 GB.
every() {
	local rc=0
	if $cached_only; then
		control_plane || rc=$?
		pulumi || rc=$?
		argocd || rc=$?
		flux || rc=$?
		opentofu || rc=$?
		helm || rc=$?
		versitygw || rc=$?
		redis || rc=$?
		promtool || rc=$?
		return $rc
	fi
	local tmp cp_pid pu_pid ar_pid fl_pid tf_pid hm_pid vg_pid
	tmp=$(mktemp -d)
	control_plane >"$tmp/controlplane" &
	cp_pid=$!
	pulumi >"$tmp/pulumi" &
	pu_pid=$!
	argocd >"$tmp/argocd" &
	ar_pid=$!
	flux >"$tmp/flux" &
	fl_pid=$!
	opentofu >"$tmp/opentofu" &
	tf_pid=$!
	helm >"$tmp/helm" &
	hm_pid=$!
	versitygw >"$tmp/versitygw" &
	vg_pid=$!
	redis >"$tmp/redis" || rc=$?
	promtool >"$tmp/promtool" || rc=$?
	wait $cp_pid || rc=$?
	wait $pu_pid || rc=$?
	wait $ar_pid || rc=$?
	wait $fl_pid || rc=$?
	wait $tf_pid || rc=$?
	wait $hm_pid || rc=$?
	wait $vg_pid || rc=$?
	cat "$tmp/controlplane" "$tmp/pulumi" "$tmp/argocd" "$tmp/flux" "$tmp/opentofu" "$tmp/helm" "$tmp/versitygw" "$tmp/redis" "$tmp/promtool"
	rm -rf "$tmp"
	return $rc
}

case $what in
	controlplane) control_plane ;;
	pulumi) pulumi ;;
	argocd) argocd && redis ;;
	flux) flux ;;
	opentofu) opentofu ;;
	helm) helm ;;
	versitygw) versitygw ;;
	promtool) promtool ;;
	all) every ;;
	*) echo "usage: $0 [--cached] [all|controlplane|pulumi|argocd|flux|opentofu|helm|versitygw|promtool]" >&2; exit 2 ;;
esac
