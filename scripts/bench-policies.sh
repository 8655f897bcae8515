# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest's benchmarks (scripts/vm-bench, scripts/vm-pgbench):
# the promotion policies' setup and teardown, node 1 marked idle, and the
# run's trace instance. policies_init POLICIES checks the kernel has what
# they need and keeps the defaults the sweeps change; fail() names the
# script that sourced it.
rate=${BENCH_RATE_MBPS:-200}
ks=/sys/kernel/mm/kscand
damon=/sys/kernel/mm/damon/admin
dbg=/sys/kernel/debug/sched/numa_balancing
tr=/sys/kernel/tracing/instances/bench
fail() { echo "${0##*/}: $*" >&2; exit 1; }

# The pids of the kernel threads whose comm matches $1 (a regex).
thread_pids() {
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in
		$1) echo "${d#/proc/}" ;;
		esac
	done
}

# Node N's physical address range, from its memory blocks.
node_range() {
	bs=$(printf '%d' "0x$(cat /sys/devices/system/memory/block_size_bytes)")
	ls -d /sys/devices/system/node/node$1/memory[0-9]* | sed 's/.*memory//' |
		sort -n | awk -v bs="$bs" 'NR == 1 { lo = $1 } { hi = $1 }
			END { printf "%.0f %.0f\n", lo * bs, (hi + 1) * bs }'
}

# Every page of node 1 marked idle (page_idle's bitmap: one bit per pfn,
# written 8 bytes at a time; node 1's range is whole memory blocks, each
# a multiple of 4096 * 8 pages).
mark_node1_idle() {
	set -- $(node_range 1)
	dd if=/dev/zero bs=4096 count=$((($2 - $1) / 4096 / 8 / 4096)) 2>/dev/null |
		tr '\0' '\377' |
		dd of=/sys/kernel/mm/page_idle/bitmap bs=4096 \
			seek=$(($1 / 4096 / 8)) oflag=seek_bytes 2>/dev/null ||
		fail "page_idle: cannot mark node 1 idle"
}

# Write a DAMON sysfs file and read it back into the run's stats.
dw() {
	echo "$2" >"$1" || fail "damon: cannot write $2 to $1"
	printf 'damon:%s,%s\n' "${1#$damon/kdamonds/}" "$(cat "$1")"
}

# A DAMOS access-pattern range: both ends written, checked and read back;
# an empty range (max < min, or max 0 where min > 0) would match no region.
drange() {
	dw "$1/min" "$2"
	dw "$1/max" "$3"
	lo=$(cat "$1/min") hi=$(cat "$1/max")
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(hi + 0 >= lo + 0) }' ||
		fail "damon: empty range $1: $lo..$hi"
}

# One kdamond of samples/damon/mtier.c: $1 the kdamond's index, $2
# promote or demote, $3 the node it watches, then the promote scheme's
# minimum nr_accesses, apply interval (us) and goal tuner.
damon_ctx() {
	k=$damon/kdamonds/$1
	c=$k/contexts/0
	s=$c/schemes/0
	tuner=$6
	set -- "$1" "$2" "$3" "$4" "$5" $(node_range "$3")
	echo 1 >$k/contexts/nr_contexts
	dw $c/operations paddr
	dw $c/monitoring_attrs/intervals/sample_us 5000
	dw $c/monitoring_attrs/intervals/aggr_us 100000
	dw $c/monitoring_attrs/intervals/update_us 60000000
	dw $c/monitoring_attrs/intervals/intervals_goal/access_bp 400
	dw $c/monitoring_attrs/intervals/intervals_goal/aggrs 3
	dw $c/monitoring_attrs/intervals/intervals_goal/min_sample_us 5000
	dw $c/monitoring_attrs/intervals/intervals_goal/max_sample_us 10000000
	dw $c/monitoring_attrs/nr_regions/min 10
	dw $c/monitoring_attrs/nr_regions/max 1000
	echo 1 >$c/targets/nr_targets
	echo 1 >$c/targets/0/regions/nr_regions
	dw $c/targets/0/regions/0/start "$6"
	dw $c/targets/0/regions/0/end "$7"
	echo 1 >$c/schemes/nr_schemes
	drange $s/access_pattern/sz 4096 18446744073709551615
	drange $s/access_pattern/age 0 4294967295
	if [ "$2" = promote ]; then
		dw $s/action migrate_hot
		dw $s/target_nid 0
		dw $s/apply_interval_us "$5"
		drange $s/access_pattern/nr_accesses "$4" 4294967295
	else
		dw $s/action migrate_cold
		dw $s/target_nid 1
		dw $s/apply_interval_us 1000000
		drange $s/access_pattern/nr_accesses 0 0
	fi
	dw $s/quotas/bytes $((rate * 1048576))
	dw $s/quotas/reset_interval_ms 1000
	dw $s/quotas/weights/sz_permil 0
	dw $s/quotas/weights/nr_accesses_permil 100
	dw $s/quotas/weights/age_permil 100
	echo 1 >$s/quotas/goals/nr_goals
	if [ "$2" = promote ]; then
		dw $s/quotas/goals/0/target_metric node_mem_used_bp
		dw $s/quotas/goals/0/target_value 9970
	else
		dw $s/quotas/goals/0/target_metric node_mem_free_bp
		dw $s/quotas/goals/0/target_value 50
	fi
	dw $s/quotas/goals/0/nid 0
	dw $s/quotas/goal_tuner "$tuner"
	echo 1 >$s/ops_filters/nr_filters
	dw $s/ops_filters/0/type young
	dw $s/ops_filters/0/matching Y
	if [ "$2" = promote ]; then
		dw $s/ops_filters/0/allow Y
	else
		dw $s/ops_filters/0/allow N
	fi
}

damon_start() {
	case "$1" in
	damon) set -- 1 1000 consist ;;
	damon-temporal) set -- 1 1000 temporal ;;
	damon-a*-i*)
		set -- "${1#damon-a}"
		set -- "${1%-i*}" "${1#*-i}"
		case "$1$2" in
		*[!0-9]*|'') fail "bad DAMON sweep policy damon-a$1-i$2" ;;
		esac
		set -- "$1" "$2" consist
		;;
	*) fail "unknown policy $1" ;;
	esac
	echo 2 >$damon/kdamonds/nr_kdamonds
	damon_ctx 0 promote 1 "$1" $(($2 * 1000)) "$3"
	damon_ctx 1 demote 0 1 1000000 "$3"
	for k in 0 1; do
		echo on >$damon/kdamonds/$k/state
		[ "$(cat $damon/kdamonds/$k/state)" = on ] || fail "damon: kdamond $k did not start"
	done
}

damon_stop() {
	for k in 0 1; do
		s=$damon/kdamonds/$k/contexts/0/schemes/0
		echo update_schemes_stats >$damon/kdamonds/$k/state
		echo update_schemes_effective_quotas >$damon/kdamonds/$k/state
		n=$([ $k = 0 ] && echo promote || echo demote)
		for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
			printf 'damos_%s_%s,%s\n' "$n" "$f" "$(cat $s/stats/$f)"
		done
		printf 'damos_%s_effective_bytes,%s\n' "$n" "$(cat $s/quotas/effective_bytes)"
		printf 'damon_%s_sample_us,%s\n' "$n" \
			"$(cat $damon/kdamonds/$k/contexts/0/monitoring_attrs/intervals/sample_us)"
	done
	for k in 0 1; do
		echo off >$damon/kdamonds/$k/state
	done
	echo 0 >$damon/kdamonds/nr_kdamonds
}

# The run's trace instance: every migration of the workload's pages (the
# PTE that replaces the migration entry: address, new pfn), the
# migrate_pages() calls with their reason, kscand's scans, and a histogram
# of TLB flushes by reason.
trace_start() {
	mkdir $tr
	echo mono >$tr/trace_clock
	echo 32768 >$tr/buffer_size_kb
	filt=$(awk -F, '$1 == "range" {
			f = f (f ? " || " : "") "(addr >= " $3 " && addr < " $4 ")" }
		END { print f }' "$1")
	echo "$filt" >$tr/events/migrate/remove_migration_pte/filter
	echo 1 >$tr/events/migrate/remove_migration_pte/enable
	echo 1 >$tr/events/migrate/mm_migrate_pages/enable
	if [ -d $tr/events/kscand ]; then
		echo 1 >$tr/events/kscand/kscand_scan_start/enable
		echo 1 >$tr/events/kscand/kscand_scan_end/enable
		echo 1 >$tr/events/kscand/kscand_migrate/enable
	fi
	echo 1 >$tr/events/damon/damos_esz/enable
	echo 1 >$tr/events/damon/damon_monitor_intervals_tune/enable
	echo 'hist:keys=reason' >$tr/events/tlb/tlb_flush/trigger
	# why pages were and were not promoted, by any promoter (the promote
	# events; not in a kernel without them)
	for e in promote_candidate promote_result; do
		[ ! -d $tr/events/promote/$e ] ||
			echo 'hist:keys=source,reason:vals=nr_pages' >$tr/events/promote/$e/trigger
	done
	# each promote event too, when asked (BENCH_PROMOTE_EVENTS)
	if [ -n "${BENCH_PROMOTE_EVENTS:-}" ] && [ -d $tr/events/promote ]; then
		echo 1 >$tr/events/promote/enable
	fi
}

trace_stop() {
	echo 0 >$tr/tracing_on
	awk '/^\{.*hitcount:/ { gsub(/[{}]/, ""); printf "tlb_flush_reason_%d,%d\n", $2, $4 }' \
		$tr/events/tlb/tlb_flush/hist >>"$2.stats"
	printf 'trace_entries_lost,%d\n' "$(awk '/^# entries-in-buffer/ { split($3, a, "/"); print a[2] - a[1] }' $tr/trace)" >>"$2.stats"
	for e in promote_candidate promote_result; do
		[ -d $tr/events/promote/$e ] || continue
		awk -v e=$e '/^\{.*hitcount:/ { gsub(/[{},]/, " ")
			for (i = 1; i < NF; i++) v[$i] = $(i + 1)
			printf "%s_%d_%d,%d,%d\n", e, v["source:"], v["reason:"], v["nr_pages:"],
				v["hitcount:"] }' \
			$tr/events/promote/$e/hist >>"$2.stats"
		echo '!hist:keys=source,reason:vals=nr_pages' >$tr/events/promote/$e/trigger
	done
	cat $tr/trace >"$2.trace"
	echo '!hist:keys=reason' >$tr/events/tlb/tlb_flush/trigger
	echo 0 >$tr/events/enable
	rmdir $tr
}

# "PREFIX-xA-yB" -> the value after -x (a sweep policy's knob), or $3
knob() {
	v=$(echo "$1" | tr '-' '\n' | sed -n "s/^$2\([0-9][0-9]*\)\$/\1/p")
	echo "${v:-$3}"
}

setup() {
	echo "$rate" >/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps
	echo "$rate" >$ks/promote_rate_limit_MBps
	printf 'promote_rate_limit_MBps,%s\n' \
		"$(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"
	case "$1" in
	none) ;;
	numab|numab-s[0-9]*)
		knob "$1" s "$numab_min0" >$dbg/scan_period_min_ms
		echo 2 >/proc/sys/kernel/numa_balancing
		for f in hot_threshold_ms scan_period_min_ms scan_period_max_ms scan_size_mb; do
			printf 'numab_%s,%s\n' "$f" "$(cat $dbg/$f)"
		done
		;;
	kscand|kscand-*p[0-9]*-[0-9]*)
		# a period range, written in the order that keeps min <= max
		echo 10 >$ks/scan_period_min_ms
		echo 600000 >$ks/scan_period_max_ms
		set -- "$1" "$(echo "$1" | sed -n 's/.*-p\([0-9]*\)-.*/\1/p')" \
			"$(echo "$1" | sed -n 's/.*-p[0-9]*-\([0-9]*\)$/\1/p')"
		echo "${3:-$kscand_max0}" >$ks/scan_period_max_ms
		echo "${2:-$kscand_min0}" >$ks/scan_period_min_ms
		case "$1" in
		kscand-l*)
			knob "$1" l 0 >/sys/module/kscand/parameters/levers ||
				fail "no kscand levers (a test build: configs/experiments/kscand-levers.patch)"
			printf 'kscand_levers,%s\n' "$(cat /sys/module/kscand/parameters/levers)"
			;;
		esac
		for f in scan_sleep_ms scan_period_min_ms scan_period_max_ms \
			scan_delay_ms scan_size_mb promote_rate_limit_MBps; do
			printf 'kscand_%s,%s\n' "$f" "$(cat $ks/$f)"
		done
		echo 1 >$ks/scan_enabled
		;;
	damon*) damon_start "$1" ;;
	*) fail "unknown policy $1" ;;
	esac
}

teardown() {
	case "$1" in
	numab*) printf 'numab_hot_threshold_ms_end,%s\n' "$(cat $dbg/hot_threshold_ms)" ;;
	esac
	echo 0 >/proc/sys/kernel/numa_balancing
	echo 0 >$ks/scan_enabled
	echo "$numab_min0" >$dbg/scan_period_min_ms
	echo 10 >$ks/scan_period_min_ms
	echo "$kscand_max0" >$ks/scan_period_max_ms
	echo "$kscand_min0" >$ks/scan_period_min_ms
	[ -z "$levers0" ] ||
		echo "$levers0" >/sys/module/kscand/parameters/levers
	case "$1" in
	damon*) damon_stop ;;
	esac
}

policies_init() {
	# kscand may be missing (the base kernel, for numab and damon alone)
	case " $1 " in
	*" kscand"*) [ -w $ks/scan_enabled ] || fail "no $ks (kernel without CONFIG_KSCAND)" ;;
	esac
	if [ ! -d $ks ]; then
		# a directory of files that take anything, so that the rest need not ask
		ks=/tmp/bench-no-kscand
		mkdir -p $ks
		for f in scan_enabled promote_rate_limit_MBps scan_period_min_ms scan_period_max_ms; do
			echo 0 >$ks/$f
		done
	fi
	[ -d $damon ] || fail "no $damon (kernel without CONFIG_DAMON_SYSFS)"
	[ -d /sys/devices/system/node/node1 ] || fail "no node 1"
	[ -w /sys/kernel/mm/page_idle/bitmap ] || fail "no page_idle (kernel without CONFIG_IDLE_PAGE_TRACKING)"
	# the defaults the sweeps' policies change, put back after each run
	numab_min0=$(cat $dbg/scan_period_min_ms)
	kscand_min0=$(cat $ks/scan_period_min_ms)
	kscand_max0=$(cat $ks/scan_period_max_ms)
	# a test build's levers (configs/experiments/kscand-levers.patch), all on
	# by default: put back after each run, so that a plain kscand run after a
	# kscand-lMASK one has them all
	levers0=$(cat /sys/module/kscand/parameters/levers 2>/dev/null || :)
	echo 1 >/sys/kernel/mm/numa/demotion_enabled
}
