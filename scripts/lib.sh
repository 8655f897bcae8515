# Shared settings and helpers, sourced by the scripts in scripts/.
# shellcheck shell=sh

top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
# One locale for every run: ccache hashes LANG, LC_ALL, LC_CTYPE and
# LC_MESSAGES into each object's key (gcc's messages follow them), so that
# CI, started under a locale other than a session's, missed every object
# the sessions had compiled, and they every one it had (on the walk's
# tree at the promote posting's head, mm_types.h touched: 1345 misses of
# 1462 objects and 888 s; the same rebuild in one locale, 1462 hits and
# 70 s; 2026-12-02).
LANG=C.UTF-8
export LANG
unset LC_ALL LC_CTYPE LC_MESSAGES
BUILD=${BUILD:-$top/build}
LOGS=$BUILD/logs
OBJ=${OBJ:-$BUILD/obj}
# The series' base: Debian's linux-source-7.3 (trixie-backports).
KVER_SERIES=7.3
KPKG_VERSION=7.3.4-1~bpo13+1
# The backport's base: Debian 12's linux-source-6.12.
BACKPORT_KVER=6.12
BACKPORT_KPKG_VERSION=6.12.117-1~deb12u1
# (not in the guest, where build/ is mounted at the host's BUILD and
# $top/build, with BUILD kept outside the clone, is on the read-only root)
[ -d "$LOGS" ] || mkdir -p "$LOGS" 2>/dev/null || :

# Selftest cases the default VM cannot run, by its topology: one top-tier
# node, a lower tier, no swap (scripts/vm-selftests' EXPECTED_SKIPS; the
# two-node cases run in "scripts/vm-run --two-top", kscand_no_lower in
# "scripts/vm-run --lower-mb 0", kscand_policy mglru_reclaim in a VM with
# swap on its NVDIMM, scripts/vm-swap-on).
ONE_TOP_SKIPS='^kscand_policy: two top-tier nodes|^kscand_no_lower: a lower memory tier|^kscand_policy: mglru_reclaim: no swap'
# The real-time kernel's (configs/rt.config): 7.3 builds neither THP nor
# NUMA balancing with PREEMPT_RT. The THP cases skip, the DAX PMD fault
# cases skip (FS_DAX_PMD needs THP); kscand, which needs neither, runs, and
# its cases for two top-tier nodes skip as in the default VM, as does its
# case of the rate limit it shares with NUMA balancing; so do the promote
# events' NUMA balancing cases.
RT_SKIPS="^promote_events: numab(_short)?: no NUMA balancing|^rmap_events: locked: needs THP|^pcp_events: thp refill: THP is disabled|^dax_events: PMD faults: no dax_pmd_fault events|^kscand_events: THP hot set: no THPs|^kscand_policy: rate_thp: 0 kB of THPs|^kscand_policy: thp_idle: no THP|^kscand_policy: short: no NUMA balancing rate limit in this kernel|$ONE_TOP_SKIPS"

# A posting booted alone (make check's per-posting step) lacks the event
# systems of the others, which trace_enum_formats skips by name.
# 7.3's own events (vmscan.h) whose print fmt reads a common field
# (__entry->ent.pid, __event_in_irq()): Debian 12's libtraceevent 1.7
# prints them [FAILED TO PARSE]. scripts/check-events finds them in the
# guest's formats; scripts/stress-report, on the host, takes this list of
# what it found on 7.3.4.
UPSTREAM_UNPARSED="mm_shrink_slab_end mm_shrink_slab_start mm_vmscan_direct_reclaim_begin mm_vmscan_direct_reclaim_end mm_vmscan_memcg_reclaim_begin mm_vmscan_memcg_reclaim_end mm_vmscan_memcg_softlimit_reclaim_begin mm_vmscan_memcg_softlimit_reclaim_end mm_vmscan_node_reclaim_end"

# kscand_policy's cases that reach kscand's code, and those that time its
# hot threshold or its periods (full warm trickle slow room short oldest
# held: how soon pages accessed at given intervals, or with the target
# short of room, count hot, and how often a process is looked at then),
# which run the same scanning and promotion code as the others:
# 164 s of about 390 s with each case run alone once on the series'
# kernel (2026-11-30; the whole test took 655 s on the debug kernel, 359
# s on the series' kernel, in one make check). The series' and the RT
# kernels run them all; the debug kernel and a posting booted alone (make
# check's per-posting step) run the first list, the others skipped by
# name.
# The debug kernel could not run "full" anyway: filling the top node to
# its watermarks stalls there in the allocator for tens of seconds (KASAN
# under TCG: "page allocation stall for 26 secs" measured on 7.3), past
# the guest's limit. (On 2026-12-04 it did not stall: "full" and
# "stays_full", run by hand there, passed in 246 s.)
KSCAND_POLICY_PATHS="kscand_policy mempolicy localalloc prctl cpuset memcg memcg_off page_idle off pinned ksm backoff rate_thp idle toptier toptier_vmas toptier_walk thp_idle asleep sparse wakeups tlb nodes memcg_limit toptier_flush epoch prune mglru mglru_hot mglru_reclaim reuse shared shared_turns no_room"
KSCAND_POLICY_TIMING_SKIPS="^kscand_policy: (full|stays_full|warm|trickle|slow|room|short|oldest|held): not asked for"
DEBUG_KSCAND_POLICY=$KSCAND_POLICY_PATHS
DEBUG_SKIPS="$KSCAND_POLICY_TIMING_SKIPS|$ONE_TOP_SKIPS"
POSTING_SKIPS="^trace_enum_formats: [a-z_]+: no such event system|$KSCAND_POLICY_TIMING_SKIPS|$ONE_TOP_SKIPS"

# posting_base POSTING: what the posting applies on: "base" (7.3), or the
# posting named in patches/POSTING/applies-on (listed before it in
# patches/series), whose patches it needs
posting_base() {
	if [ -f "$top/patches/$1/applies-on" ]; then
		read -r pb <"$top/patches/$1/applies-on" && echo "$pb"
	else
		echo base
	fi
}

info() { printf '%s\n' "$*" >&2; }
die() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

# Results, one way for every script of make check: pass TEXT, skip TEXT
# and fail TEXT [LOG] print a "PASS: "/"SKIP: "/"FAIL: " line with
# RESULT_PREFIX (e.g. "debug kernel: ") after the verdict; fail also sets
# rc=1. results_of PREFIX LOG passes on the result lines (and the "  # "
# diagnostics) another script or a guest wrote to LOG, RESULT_PREFIX and
# PREFIX after their verdict; guest_results PREFIX LOG RC does that and
# counts one failure for a run that failed (RC) without a FAIL line of its
# own. With RESULTS set (scripts/check), each line also goes to that file,
# where it is counted, once.
results_out() {
	if [ -n "${RESULTS:-}" ]; then tee -a "$RESULTS"; else cat; fi
}
pass() { echo "PASS: ${RESULT_PREFIX:-}$*" | results_out; }
skip() { echo "SKIP: ${RESULT_PREFIX:-}$*" | results_out; }
fail() {
	echo "FAIL: ${RESULT_PREFIX:-}$1${2:+ (log: $2)}" | results_out
	rc=1
}
results_of() {
	grep -E '^(PASS|FAIL|SKIP): |^  # ' "$2" |
		sed -E "s/^(PASS|FAIL|SKIP): /\1: ${RESULT_PREFIX:-}$1/" | results_out
}
guest_results() {
	results_of "$1" "$2"
	[ "$3" = 0 ] || grep -q '^FAIL: ' "$2" || fail "${1}VM run (exit $3)" "$2"
}
# show FILE...: a log's first 20 lines, indented under a result
show() { sed 's/^/  | /' "$@" | head -20; }
# need_kmem_copies PROGRAM...: in the guest, for vm-kmemtrace and
# vm-perf-kmem: the programs, and node 1 for kmem-work's setxattr()
# copies, or a failure and exit 1
need_kmem_copies() {
	for p; do
		[ -x "$p" ] || { fail "no $p"; exit 1; }
	done
	[ -d /sys/devices/system/node/node1 ] ||
		{ fail "the VM has no node 1 for the setxattr() copies"; exit 1; }
}
