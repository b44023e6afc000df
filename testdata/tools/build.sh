#!/usr/bin/env bash
# Builds the real test control plane (kube-apiserver + etcd) and the pulumi CLI from
# the Go module proxy into a cache directory outside the repository, keyed by version
# and by the tools module's go.sum. Warm runs only check that the binaries exist.
#
# Prints the directory of each tool set:
#   KUBEBUILDER_ASSETS=<dir with kube-apiserver and etcd>
#   DRIFTDECK_PULUMI=<path of the pulumi binary>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache_root=${DRIFTDECK_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/driftdeck/tools}
k8s_version=v1.37.2
pulumi_version=v3.274.1
what=${1:-all}

log() { printf '[tools] %s\n' "$*" >&2; }

sum_key() { sha256sum "$1/go.sum" | cut -c1-12; }

build_control_plane() {
	local mod=$here/testcontrolplane
	local out=$cache_root/controlplane-$k8s_version-$(sum_key "$mod")
	if [[ -x $out/kube-apiserver && -x $out/etcd ]]; then
		log "control plane $k8s_version cached in $out"
	else
		log "building kube-apiserver $k8s_version (cold: ~10 min on 2 cores)"
		local start=$SECONDS tmp=$out.partial
		rm -rf "$tmp" && mkdir -p "$tmp"
		local minor=${k8s_version#v1.}; minor=${minor%%.*}
		local ld="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version"
		ld+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
		ld+=" -X k8s.io/component-base/version.gitTreeState=clean"
		ld+=" -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version"
		ld+=" -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
		(cd "$mod" && go build -trimpath -ldflags="$ld" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
		log "kube-apiserver built in $((SECONDS - start)) s; building etcd"
		(cd "$mod" && go build -trimpath -ldflags="-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
		rm -rf "$out" && mv "$tmp" "$out"
		log "control plane built in $((SECONDS - start)) s into $out"
	fi
	echo "KUBEBUILDER_ASSETS=$out"
}

build_pulumi() {
	local mod=$here/pulumicli
	local out=$cache_root/pulumi-$pulumi_version-$(sum_key "$mod")
	if [[ -x $out/pulumi ]]; then
		log "pulumi $pulumi_version cached in $out"
	else
		log "building pulumi CLI $pulumi_version (cold: ~14 CPU-minutes)"
		local start=$SECONDS tmp=$out.partial
		rm -rf "$tmp" && mkdir -p "$tmp"
		(cd "$mod" && go build -trimpath \
			-ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$pulumi_version" \
			-o "$tmp/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
		rm -rf "$out" && mv "$tmp" "$out"
		log "pulumi built in $((SECONDS - start)) s into $out"
	fi
	echo "DRIFTDECK_PULUMI=$out/pulumi"
}

case $what in
	controlplane) build_control_plane ;;
	pulumi) build_pulumi ;;
	all) build_control_plane; build_pulumi ;;
	*) echo "usage: $0 [all|controlplane|pulumi]" >&2; exit 2 ;;
esac
