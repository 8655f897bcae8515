# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bench-report.

testdata/bench/ is a make bench run cut down: build/bench-final's small
quiet none and kscand runs 1 and 2 (kscand's series as sent, 2026-12),
their hot sets cut to their first 64 pages (the ranges, the totals, the
census at the end and the remove_migration_pte events with them), six
other events of each trace kept, the vmstat counters bench-report does
not read left out where 0. testdata/bench-expected/ holds what the awk
bench-report wrote of it (summary.csv, medians.csv, the .res files,
promote-reasons.csv, promote-events.csv, the table on stdout and the
warnings on stderr), with the skewed pattern's columns added since ("-"
in these runs).

The other tests build small runs in the same formats, for what the
recorded runs do not reach (untraced and loaded, numab and damon,
demotions, the drifting hot set...); their values are worked out by hand
in the comments, and were the awk's too but where a test says it differs
on purpose (a "-" for a DAMON value not known, where the awk had 0 or
nothing; no row for a run that did not finish; a median past 2^31 - 1).

  python3 -m unittest discover -s scripts -p 'test_*.py'
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tracetext  # noqa: E402

SCRIPT = os.path.join(HERE, 'bench-report')
SAMPLE = os.path.join(HERE, 'testdata', 'bench')
EXPECTED = os.path.join(HERE, 'testdata', 'bench-expected')


def load():
    loader = importlib.machinery.SourceFileLoader('bench_report', SCRIPT)
    spec = importlib.util.spec_from_loader('bench_report', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


br = load()


def read(path):
    with open(path) as f:
        return f.read()


class Recorded(unittest.TestCase):
    def test_the_awks_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'bench')
            shutil.copytree(SAMPLE, out)
            table, warnings = br.report(out)
            for name in sorted(os.listdir(EXPECTED)):
                if name in ('table.txt', 'warnings.txt'):
                    continue
                self.assertEqual(read(os.path.join(out, name)),
                                 read(os.path.join(EXPECTED, name)), name)
            written = {n for n in os.listdir(out) if n not in os.listdir(SAMPLE)}
            self.assertEqual(written, set(os.listdir(EXPECTED)) - {'table.txt', 'warnings.txt'})
        self.assertEqual(''.join(ln + '\n' for ln in table),
                         read(os.path.join(EXPECTED, 'table.txt')))
        self.assertEqual(''.join(w + '\n' for w in warnings),
                         read(os.path.join(EXPECTED, 'warnings.txt')))

    def test_every_event_line_parsed(self):
        for name in os.listdir(SAMPLE):
            if not name.endswith('.trace'):
                continue
            with open(os.path.join(SAMPLE, name)) as f:
                lines = f.readlines()
            n = sum(1 for ln in lines if not ln.startswith('#'))
            self.assertEqual(len(list(tracetext.events(lines))), n, name)
            n = sum(1 for ln in lines if 'remove_migration_pte: addr=' in ln)
            evs = list(tracetext.events(lines, ('remove_migration_pte',)))
            self.assertEqual(len(evs), n, name)
            for ev in evs:
                self.assertRegex(ev['fields']['addr'], '^[0-9a-f]{12}$')
                self.assertRegex(ev['fields']['pte'], '^[0-9a-f]{16}$')

    def test_usage(self):
        for args in ([], ['a', 'b'], ['/nonexistent']):
            r = subprocess.run([SCRIPT] + args, capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertTrue(r.stderr.startswith('FAILED: '), r.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(os.path.join(SAMPLE, 'machine.stats'), tmp)
            r = subprocess.run([SCRIPT, tmp], capture_output=True, text=True)
            self.assertEqual(r.stderr, 'FAILED: bench-report: no runs in %s\n' % tmp)


class Medians(unittest.TestCase):
    def test_stat(self):
        self.assertEqual(br.stat(['1.53', '0.63', '0.67']), ('0.67', '0.63', '1.53'))
        # a whole number as summary.csv has it, another to 3 digits
        self.assertEqual(br.stat(['2.949', '2.949', '2.996']), ('2.95', '2.95', '3'))
        self.assertEqual(br.stat(['90.0']), ('90.0', '90.0', '90.0'))
        # a median of two is their mean: a whole number without decimals
        self.assertEqual(br.stat(['32.00', '32.00']), ('32', '32.00', '32.00'))
        self.assertEqual(br.stat(['1234.5', '1235.5']), ('1235', '1.23e+03', '1.24e+03'))
        self.assertEqual(br.stat(['never', 'never', '0.5']), ('never', '0.5', 'never'))
        self.assertEqual(br.stat(['-', '1']), ('-', '-', '-'))
        # half of the runs never there: never (the awk took "never" for
        # 1e9, and had 5e+08 s)
        self.assertEqual(br.stat(['never', '0.67']), ('never', '0.67', 'never'))
        # 1e9 and more as they are (the awk: never)
        self.assertEqual(br.stat(['1500000000', '2000000000']),
                         ('1750000000', '1500000000', '2000000000'))
        # a deliberate difference: the awk printed a mean past mawk's int
        # (2^31 - 1) by %.6g, "3.5e+09"
        self.assertEqual(br.stat(['3000000000', '4000000000']),
                         ('3500000000', '3000000000', '4000000000'))


class Names(unittest.TestCase):
    def test_split_name(self):
        self.assertEqual(br.split_name('small-quiet-none-1'), ('small', 'quiet', 'none', '1'))
        self.assertEqual(br.split_name('full-loaded-damon-a10-i500-12'),
                         ('full', 'loaded', 'damon-a10-i500', '12'))

    def test_order(self):
        names = ['drift-quiet-none-1', 'small-loaded-kscand-1', 'small-quiet-damon-a1-i100-1',
                 'small-quiet-damon-1', 'small-quiet-kscand-p100-1000-1', 'small-quiet-kscand-1',
                 'small-quiet-numab-1', 'small-quiet-none-10', 'small-quiet-none-2',
                 'large-untraced-none-1', 'full-quiet-none-1', 'odd-quiet-none-1']
        got = sorted(names, key=lambda n: br.sort_key(*br.split_name(n)))
        want = ['odd-quiet-none-1',     # a regime of no rank first
                'small-quiet-none-2', 'small-quiet-none-10', 'small-quiet-numab-1',
                'small-quiet-kscand-1', 'small-quiet-kscand-p100-1000-1',
                'small-quiet-damon-1', 'small-quiet-damon-a1-i100-1',
                'small-loaded-kscand-1', 'large-untraced-none-1', 'full-quiet-none-1',
                'drift-quiet-none-1']
        self.assertEqual(got, want)


# Runs in the formats of scripts/vm-bench, built small: pages of 256 KiB
# (a page is 0.25 MiB), the sets where they start (in pages from BASE)
# and how many pages they have.
PSZ = 262144
BASE = 0x7f0000000000
SETS = {'hot_a': (16, 5), 'hot_b': (32, 8), 'warm': (48, 2), 'oneshot': (56, 2),
        'cold': (64, 8), 'idle': (80, 2), 'hot_c': (96, 4)}
MACHINE = ('node1_mb,4534\nnode1_pfn_lo,1048576\nnode1_pfn_hi,2228224\nwarmup_s,30\n'
           'steady_s,1\nmoved_s,1\npass_ms,50\ntick_us,2000\nrate_MBps,200\n'
           'cpu_model,QEMU TCG CPU version 2.5+\n')
HEADER = ('# tracer: nop\n#\n# entries-in-buffer/entries-written: 20/20   #P:2\n#\n'
          '#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n'
          '#              | |         |   |||||     |         |\n')


def addr(s, i):
    return BASE + (SETS[s][0] + i) * PSZ


def pte_event(t, s, i, node=0):
    """set s's page i moved to node (its pfn in node 1's range or not)"""
    pfn = 0x100050 + i if node else 0x9000 + i
    return ('          kscand-36      [001] ...1. %12.6f: remove_migration_pte: '
            'addr=%x, pte=%016x order=0\n' % (t, addr(s, i), 0x8000000000000047 | pfn << 12))


def damon_event(t, kdamond, text):
    return '%16s-%-7d [000] ..... %12.6f: %s\n' % ('kdamond.%d' % kdamond, 60 + kdamond, t, text)


def csv_text(end_b, threads=(), vmstat=(), **over):
    tot = dict(hot_a=4, hot_b=4, warm=2, oneshot=2, cold=8, idle=2, hot_pages=4, page_size=PSZ,
               drift_mb=0, drift_s=2, meter_loops_per_s=1000, steady_s='1.000000',
               steady_passes=20, steady_passes_due=20, steady_meter_loops=900,
               steady_spin_loops=0, moved_s='1.000000', moved_passes=18, moved_passes_due=20,
               moved_meter_loops=800, moved_spin_loops=100, background_s='2.000000',
               background_meter_loops=1900, background_spin_loops=0, t0_mono_s='100.000000')
    tot.update(over)
    lines = ['range,%s,0x%x,0x%x' % (s, addr(s, 0), addr(s, n)) for s, (_, n) in SETS.items()]
    lines += ['ready', 'end,hot_a,hot_b,warm,oneshot,cold,idle', 'end,4,%d,0,0,0,0' % end_b]
    lines += ['total,%s,%s' % kv for kv in tot.items()]
    lines += ['thread,%s,%s,%s' % t for t in threads]
    lines += ['vmstat,%s,%s,%s' % v for v in vmstat]
    return ''.join(ln + '\n' for ln in lines)


THREADS = 'thread_36,kscand\nthread_42,kswapd0\nthread_43,kswapd1\nthread_32,kcompactd0\n'
DAMON_THREADS = 'thread_60,kdamond.0\nthread_61,kdamond.1\n'

# the mixed run: each set's pages promoted, some demoted, around the move
# (t0 100 s, the move at 101 s, the window's end at 102 s)
MIX_TRACE = HEADER + ''.join([
    pte_event(99.5, 'hot_a', 0),        # the warm-up: false (warmup)
    '          kscand-36      [000] .....    99.600000: kscand_scan_start: tgid=547\n',
    pte_event(100.1, 'hot_a', 1),       # hot
    pte_event(100.2, 'hot_a', 2),       # hot
    pte_event(100.3, 'hot_a', 3),       # hot: 4 of 4 on node 0, t95_start_s 0.30
    pte_event(100.4, 'hot_b', 0),       # B before the move: false (cold)
    damon_event(100.45, 0, 'damos_esz: ctx_idx=0 scheme_idx=0 esz=4096'),  # not damon's run
    pte_event(100.5, 'cold', 0),        # false (cold)
    pte_event(100.6, 'warm', 0),        # warm
    pte_event(100.7, 'oneshot', 0),     # false (oneshot)
    pte_event(100.8, 'idle', 0),        # false (idle)
    pte_event(100.9, 'hot_c', 0, 1),    # hot set C demoted
    pte_event(101.0, 'hot_b', 1),       # hot (B from the move on)
    pte_event(101.2, 'hot_a', 0, 1),    # demoted: promoted_demoted
    pte_event(101.3, 'hot_a', 0),       # back, not counted again
    pte_event(101.4, 'hot_b', 2),       # hot
    pte_event(101.5, 'hot_b', 3),       # hot: 4 of 4 of B, t95_moved_s 0.50
    pte_event(101.6, 'hot_c', 0, 1),    # C's page again: counted once
    pte_event(101.7, 'hot_a', 4),       # A after the move: late_hot_a
    '          kscand-36      [001] ...1.   101.800000: remove_migration_pte: '
    'addr=%x, pte=8000000009000047 order=0\n' % (BASE + 200 * PSZ),  # in no set
    pte_event(102.5, 'hot_b', 0, 1),    # after the window: demoted
])
MIX_CSV = csv_text(3, threads=[(36, 'steady', '1.500'), (36, 'moved', '2.500'),
                               (42, 'steady', '1.000'), (43, 'moved', '2.000'),
                               (32, 'moved', '0.750')],
                   vmstat=[('warmup', 'pgpromote_success', 1),
                           ('steady', 'pgpromote_success', 5), ('moved', 'pgpromote_success', 6),
                           ('steady', 'pgpromote_candidate', 7),
                           ('steady', 'pgdemote_kswapd', 1), ('moved', 'pgdemote_direct', 2),
                           ('moved', 'pgmigrate_success', 12),
                           ('steady', 'kscand_scanned', 100), ('moved', 'kscand_scanned', 200),
                           ('moved', 'kscand_young', 10), ('moved', 'kscand_hot', 4)])
MIX_STATS = THREADS + ('tlb_flush_reason_1,10\ntlb_flush_reason_2,20\ntlb_flush_reason_3,30\n'
                       'tlb_flush_reason_4,40\ntlb_flush_reason_0,500\ntlb_flush_reason_5,7\n'
                       'trace_entries_lost,0\npromote_candidate_2_1,40,10\n'
                       'promote_result_2_8,40,10\n')
# hot set A's share (0-1 s), then B's (1-2 s), before each sample's events
MIX_RES = ['0.00 25.00', '0.25 75.00', '0.50 100.00', '0.75 100.00', '1.00 25.00',
           '1.25 50.00', '1.50 75.00', '1.75 100.00', '2.00 100.00']
MIX_ROW = ('small,quiet,kscand,1,'
           '0.30,0.50,'                 # t95_start_s, t95_moved_s
           '1.50,2.00,0.25,0.25,'       # hot (6 pages), hot sets (2 x 4), late (1), warm (1)
           '1.25,0.25,0.50,0.25,0.25,'  # false (5): warmup 1, cold 2, oneshot 1, idle 1
           '0.50,0.25,'                 # promoted then demoted (2), hot set C demoted (1)
           '75.0,100.0,-,'              # B at the end: sampled 3 of 4, traced 4 of 4; no drift
           '90.0,'                      # paced: 18 passes of 20 in the moved phase
           '2.000,1000,900,950,'        # window, meter, (900 + 800 + 100) / 2, 1900 / 2
           '0.004,0.003,0.001,'         # kscand 4 ms, kswapds 3 ms, kcompactd 0.75 ms
           '11,7,3,12,0,0,300,10,4,1,'  # vmstat over the window; the warm-up's promotions
           '100,10,20,30,40,500,'       # TLB flushes: reasons 1-4, and 0 (switches)
           '-,-,-,-,-,-,0,'             # DAMON's; none lost
           '-,-,-,-')                   # not skewed
# the none run's loops: 1000 a second in the window and the background
NONE_CSV = csv_text(0, steady_meter_loops=1000, moved_meter_loops=1000, moved_spin_loops=0,
                    moved_passes=20, background_meter_loops=2000)
NONE_ROW = ('small,quiet,none,1,never,never,0.00,2.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,'
            '0.00,0.00,0.0,0.0,-,100.0,2.000,1000,1000,1000,0.000,0.000,0.000,'
            '0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-,-,-,-,-,-,0,-,-,-,-')


def write_run(d, name, csv, stats, trace):
    for ext, text in (('csv', csv), ('stats', stats), ('trace', trace)):
        with open(os.path.join(d, '%s.%s' % (name, ext)), 'w') as f:
            f.write(text)


def build(d, runs):
    with open(os.path.join(d, 'machine.stats'), 'w') as f:
        f.write(MACHINE)
    for run in runs:
        write_run(d, *run)


def summary(d):
    with open(os.path.join(d, 'summary.csv')) as f:
        lines = f.read().splitlines()
    return lines[0], {','.join(ln.split(',')[:4]): ln for ln in lines[1:]}


class Synthetic(unittest.TestCase):
    def test_mixed_run_and_costs(self):
        with tempfile.TemporaryDirectory() as d:
            build(d, [('small-quiet-kscand-1', MIX_CSV, MIX_STATS, MIX_TRACE),
                      ('small-quiet-none-1', NONE_CSV, THREADS, HEADER)])
            table, warnings = br.report(d)
            head, rows = summary(d)
            with open(os.path.join(d, 'small-quiet-kscand-1.res')) as f:
                res = f.read().splitlines()
            with open(os.path.join(d, 'medians.csv')) as f:
                med = f.read().splitlines()
            with open(os.path.join(d, 'promote-events.csv')) as f:
                events = f.read().splitlines()
        self.assertEqual(head, ','.join(br.COLS) + ',cpu_s,background_cpu_s_per_s,'
                         'marginal_cpu_s_per_gib_hot')
        # cpu_s (1000 - 900) x 2 / 1000; background (1000 - 950) / 1000;
        # per GiB of the 1.5 MiB hot: (0.2 - 0.05 x 2) x 1024 / 1.5
        self.assertEqual(rows['small,quiet,kscand,1'], MIX_ROW + ',0.200,0.0500,68.267')
        self.assertEqual(rows['small,quiet,none,1'], NONE_ROW + ',0.000,0.0000,-')
        self.assertEqual(list(rows), ['small,quiet,none,1', 'small,quiet,kscand,1'])
        self.assertEqual(res, MIX_RES)
        # one run: its values, to 3 significant digits but where integers
        self.assertEqual(med[2], 'small,quiet,kscand,1,0.3,0.3,0.3,0.5,0.5,0.5,-,-,-,'
                         '1.5,1.5,1.5,0.25,0.25,0.25,0.25,0.25,0.25,1.25,1.25,1.25,'
                         '0.5,0.5,0.5,0.25,0.25,0.25,90.0,90.0,90.0,0.2,0.2,0.2,'
                         '0.05,0.05,0.05,68.3,68.3,68.3,0.004,0.004,0.004,0.003,0.003,'
                         '0.003,11,11,11,3,3,3,0,0,0,100,100,100,-,-,-,-,-,-,-,-,-,-,-,-')
        self.assertEqual(table[2], 'small    quiet    kscand       0.3 [0.3-0.3]    0.5 [0.5-0.5]  '
                         '  1.5       0.25      1.25      0.2 [0.2-0.2]     0.05 [0.05-0.05]  '
                         '  68.3 [68.3-68.3]  0.5       -                 90.0')
        # hot set B at the end: 3 of 4 by move_pages(), 4 of 4 by the events
        self.assertEqual(warnings, ['bench-report: WARNING: the trace and move_pages() '
                                    'disagree on hot set B at the end in: small-quiet-kscand-1'])
        # 10 candidate and 10 result events over 2 s (steady and moved: the
        # csv has no warmup_s)
        self.assertEqual(events[1:], ['small,quiet,kscand,1,2.0,10,10,10'])

    def test_untraced(self):
        """No trace: no page counts nor times; the costs against the
        untraced none runs; the kscand thread counted for kscand only."""
        with tempfile.TemporaryDirectory() as d:
            build(d, [('small-untraced-kscand-1', MIX_CSV, MIX_STATS, ''),
                      ('small-untraced-none-1', NONE_CSV, THREADS, ''),
                      ('small-untraced-numab-1', MIX_CSV, THREADS, '')])
            br.report(d)
            _, rows = summary(d)
            with open(os.path.join(d, 'small-untraced-kscand-1.res')) as f:
                res = f.read().splitlines()
        want = ('small,untraced,kscand,1,-,-,-,-,-,-,-,-,-,-,-,-,-,75.0,-,-,90.0,2.000,1000,'
                '900,950,0.004,0.003,0.001,11,7,3,12,0,0,300,10,4,1,100,10,20,30,40,500,'
                '-,-,-,-,-,-,0,-,-,-,-,0.200,0.0500,-')
        self.assertEqual(rows['small,untraced,kscand,1'], want)
        self.assertTrue(rows['small,untraced,numab,1'].startswith(
            'small,untraced,numab,1,-,-,-,-,-,-,-,-,-,-,-,-,-,75.0,-,-,90.0,2.000,1000,900,950,'
            '0.000,0.003,0.001,'))
        # no events: the samples are there, at 0
        self.assertEqual(res, ['%.2f 0.00' % (b / 4) for b in range(9)])

    def test_damon_loaded(self):
        """DAMON's columns: the promote kdamond's quota and interval as
        they were at t0, else the interval from the stats; the busy
        processes' loops in the loops."""
        tr = HEADER + ''.join([
            damon_event(99.0, 0, 'damos_esz: ctx_idx=0 scheme_idx=0 esz=1048576'),
            damon_event(99.5, 1, 'damos_esz: ctx_idx=0 scheme_idx=0 esz=999999'),
            damon_event(99.9, 0, 'damon_monitor_intervals_tune: sample_us=5000'),
            pte_event(100.1, 'hot_a', 1),
            damon_event(100.5, 0, 'damos_esz: ctx_idx=0 scheme_idx=0 esz=4194304'),
            damon_event(100.6, 0, 'damon_monitor_intervals_tune: sample_us=7000')])
        csv = csv_text(4, threads=[(60, 'steady', '10.000'), (60, 'moved', '20.000'),
                                   (61, 'steady', '1.000'), (61, 'moved', '2.000'),
                                   (36, 'moved', '5.000')],
                       steady_spin_loops=300)
        stats = (THREADS + DAMON_THREADS + 'damos_promote_nr_applied,7\n'
                 'damos_promote_sz_applied,1835008\ndamos_promote_qt_exceeds,2\n'
                 'damos_demote_sz_applied,65536\n'
                 'damon:0/contexts/0/monitoring_attrs/intervals/sample_us,400\n'
                 'trace_entries_lost,3\n')
        # run 3's stats without the promote scheme's qt_exceeds nor the
        # sampling interval set
        stats3 = ''.join(ln + '\n' for ln in stats.splitlines()
                         if not ln.startswith(('damos_promote_qt', 'damon:')))
        with tempfile.TemporaryDirectory() as d:
            build(d, [('large-loaded-damon-temporal-1', csv, stats, tr),
                      ('large-loaded-damon-temporal-2', csv, stats, HEADER),
                      ('large-loaded-damon-temporal-3', csv, stats3, HEADER)])
            _, warnings = br.report(d)
            _, rows = summary(d)
        one = rows['large,loaded,damon-temporal,1'].split(',')
        two = rows['large,loaded,damon-temporal,2'].split(',')
        three = rows['large,loaded,damon-temporal,3'].split(',')
        cols = br.COLS
        # (900 + 300 + 800 + 100) / 2; the two kdamonds' 33 ms
        self.assertEqual(one[cols.index('loops_per_s'):cols.index('kswapd_cpu_s')],
                         ['1050', '950', '0.033'])
        self.assertEqual(one[cols.index('damos_nr_applied'):],
                         ['7', '1835008', '2', '65536', '1024', '5000', '3',
                          '-', '-', '-', '-',   # not skewed
                          '-', '-', '-'])       # no none run in loaded: no costs
        # no damos_esz event before t0: no quota (a deliberate difference:
        # the awk had 0); the interval set, from the stats
        self.assertEqual(two[cols.index('damos_nr_applied'):],
                         ['7', '1835008', '2', '65536', '-', '400', '3'] + ['-'] * 7)
        # a statistic not there: "-" (a deliberate difference: the awk left
        # the cell empty)
        self.assertEqual(three[cols.index('damos_nr_applied'):],
                         ['7', '1835008', '-', '65536', '-', '-', '3'] + ['-'] * 7)
        self.assertEqual(one[cols.index('hot_promoted_mib')], '0.25')
        self.assertEqual(warnings[-1], 'bench-report: WARNING: the ring buffer dropped events '
                         'in: large-loaded-damon-temporal-1\nlarge-loaded-damon-temporal-2\n'
                         'large-loaded-damon-temporal-3 (their page counts are low)')

    def test_drift(self):
        """The drifting hot set (tier-bench -D): 2 pages (hot_pages), 2
        pages further every 0.5 s of the moved phase."""
        tr = HEADER + ''.join([
            pte_event(101.1, 'hot_b', 0),   # window 0 (B0 B1): hot
            pte_event(101.3, 'hot_b', 3),   # window 0: past it, cold
            pte_event(101.6, 'hot_b', 2),   # window 1 (B2 B3): hot
            pte_event(101.7, 'hot_b', 1),   # window 1: before it, late
            pte_event(101.8, 'cold', 0)])   # cold
        csv = csv_text(2, hot_pages=2, drift_mb='0.5', drift_s='0.5')
        with tempfile.TemporaryDirectory() as d:
            build(d, [('drift-quiet-kscand-1', csv, THREADS, tr)])
            br.report(d)
            _, rows = summary(d)
            with open(os.path.join(d, 'drift-quiet-kscand-1.res')) as f:
                res = f.read().splitlines()
        row = rows['drift,quiet,kscand,1'].split(',')
        # the window's pages on node 0 at 1.0, 1.25 (B0), 1.5 (B3),
        # 1.75 (B2 B3: 95%, t95_moved_s 0.75), 2.0 (B4 B5): 4 of 5 x 2
        self.assertEqual(row[4:21], ['never', '0.75', '0.50', '1.00', '0.25', '0.00', '0.50',
                                     '0.00', '0.50', '0.00', '0.00', '0.00', '0.00', '50.0',
                                     '200.0', '40.0', '90.0'])
        self.assertEqual(res[4:], ['1.00 0.00', '1.25 50.00', '1.50 50.00', '1.75 100.00',
                                   '2.00 0.00'])

    def test_skew(self):
        """The skewed pattern (tier-bench -Z): 4 region pages (hot set A's
        first 4) by a Zipf law of exponent 1, probabilities 12/25, 6/25,
        4/25 and 3/25 by rank; rank r is page 3r % 4 before the move (pages
        0-3: .48 .12 .16 .24), (3r + 2) % 4 after it (.16 .24 .48 .12)."""
        tr = HEADER + ''.join([
            pte_event(99.5, 'hot_a', 0),        # the warm-up: false; share .48
            pte_event(100.3, 'hot_a', 3),       # .72
            pte_event(100.6, 'idle', 0),        # false, not in the region
            pte_event(100.9, 'hot_a', 0, 1),    # demoted: .24
            pte_event(101.2, 'hot_a', 2),       # after the move (page 3: .12): .60
            pte_event(101.4, 'hot_a', 0)])      # .76
        csv = csv_text(0, zipf_theta='1.000', zipf_pages=4, zipf_mult=3, zipf_off_steady=0,
                       zipf_off_moved=2, zipf_draws=4, node0_free_kb=512,
                       node0_high_kb=256, hot_pages=1)
        with tempfile.TemporaryDirectory() as d:
            build(d, [('skew-quiet-kscand-1', csv, THREADS, tr)])
            table, _ = br.report(d)
            _, rows = summary(d)
            with open(os.path.join(d, 'skew-quiet-kscand-1.res')) as f:
                res = f.read().splitlines()
        row = dict(zip(br.COLS, rows['skew,quiet,kscand,1'].split(',')))
        for col in ('t95_start_s', 't95_moved_s', 'hot_promoted_mib', 'late_hot_a_mib',
                    'warm_promoted_mib', 'cold_promoted_mib', 'oneshot_promoted_mib',
                    'hot_end_sampled_pct', 'hot_end_trace_pct'):
            self.assertEqual(row[col], '-', col)
        # the samples' mean: (.48 .48 .72 .72 .12 .60 .76 .76 .76) / 9; the
        # best: node 0's 512 kB free, 256 of them its high watermark, hold 1
        # page, and hot set C's 1 page another: ranks 0 and 1 (3 pages
        # with the watermark, 1 without hot set C); promoted in
        # the window: pages 3, 2 and 0 (not the idle one)
        self.assertEqual([row[c] for c in ('top_share_pct', 'top_share_end_pct',
                                           'top_share_best_pct', 'skew_promoted_mib',
                                           'false_promoted_mib', 'warmup_promoted_mib',
                                           'idle_promoted_mib', 'promoted_demoted_mib')],
                         ['60.0', '76.0', '72.0', '0.75', '0.50', '0.25', '0.25', '0.25'])
        self.assertEqual(res, ['0.00 48.00', '0.25 48.00', '0.50 72.00', '0.75 72.00',
                               '1.00 12.00', '1.25 60.00', '1.50 76.00', '1.75 76.00',
                               '2.00 76.00'])
        self.assertIn(' 60.0 [60.0-60.0] ', table[1])

    def test_hot_b_before_the_move(self):
        """Hot set B all on node 0 before the move, and still at it:
        t95_moved_s 0.00 (its pages false: cold)."""
        tr = HEADER + pte_event(100.1, 'hot_b', 0) + pte_event(100.2, 'hot_b', 1)
        csv = csv_text(2, hot_pages=2)
        with tempfile.TemporaryDirectory() as d:
            build(d, [('full-quiet-numab-s500-1', csv, THREADS, tr)])
            br.report(d)
            _, rows = summary(d)
        row = rows['full,quiet,numab-s500,1'].split(',')
        self.assertEqual(row[4:11], ['never', '0.00', '0.00', '1.00', '0.00', '0.00', '0.50'])

    def test_incomplete_run(self):
        """A run whose workload did not finish (its csv has no totals): no
        row, and a message (the awk wrote a row of zeros, inf and nan)."""
        cut = MIX_CSV[:MIX_CSV.index('total,')]
        with tempfile.TemporaryDirectory() as d:
            build(d, [('small-quiet-kscand-1', cut, MIX_STATS, MIX_TRACE),
                      ('small-quiet-none-1', NONE_CSV, THREADS, HEADER)])
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                br.report(d)
            _, rows = summary(d)
            self.assertFalse(os.path.exists(os.path.join(d, 'small-quiet-kscand-1.res')))
        self.assertEqual(list(rows), ['small,quiet,none,1'])
        self.assertEqual(err.getvalue(), 'bench-report: no row for small-quiet-kscand-1: '
                         'no total,t0_mono_s\n')

    def test_promote_reasons(self):
        stats = THREADS + ('promote_candidate_1_2,100,10\npromote_result_0_8,5,5\n'
                           'promote_candidate_7_99,1,1\n')
        with tempfile.TemporaryDirectory() as d:
            build(d, [('small-quiet-damon-a2-i500-3', NONE_CSV, stats, HEADER),
                      ('small-quiet-none-1', NONE_CSV, THREADS, HEADER)])
            br.report(d)
            with open(os.path.join(d, 'promote-reasons.csv')) as f:
                reasons = f.read().splitlines()
            with open(os.path.join(d, 'promote-events.csv')) as f:
                events = f.read().splitlines()
        self.assertEqual(reasons[1:], [
            'small,quiet,damon-a2-i500,3,promote_candidate,,,1,1',   # no such source nor reason
            'small,quiet,damon-a2-i500,3,promote_candidate,damon,cold,100,10',
            'small,quiet,damon-a2-i500,3,promote_result,numab,promoted,5,5'])
        # 16 events in 2 s (steady and moved); none's
        # run had none
        self.assertEqual(events[1:], ['small,quiet,damon-a2-i500,3,2.0,11,5,8'])


if __name__ == '__main__':
    unittest.main()
