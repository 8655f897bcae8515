# Shared settings and helpers, sourced by the scripts in scripts/.
# shellcheck shell=sh

top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$top/build}
LOGS=$BUILD/logs
OBJ=${OBJ:-$BUILD/obj}
KVER_SERIES=6.12
KPKG_VERSION=6.12.117-1~deb12u1
mkdir -p "$LOGS"

# Selftest cases the default VM cannot run, by its topology: one top-tier
# node (scripts/vm-selftests' EXPECTED_SKIPS; the two-node cases run in
# "scripts/vm-run --two-top").
ONE_TOP_SKIPS='^kscand_policy: two top-tier nodes'

info() { printf '%s\n' "$*" >&2; }
die() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
