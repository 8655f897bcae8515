# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/pgbench-report, on small runs in the formats
scripts/vm-pgbench writes; the values are worked out by hand in the
comments.

  python3 -m unittest discover -s scripts -p 'test_*.py'
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, 'pgbench-report')

# node 1 is pfns 1000-1999: a PTE of pfn 10 is on node 0, of 1500 on node 1
MACHINE = 'node1_mb,4\nnode1_pfn_lo,1000\nnode1_pfn_hi,2000\n'
LO, HI = 0x7f0000000000, 0x7f0000100000
HOT = [LO + i * 4096 for i in range(4)]
OTHER = LO + 16 * 4096


def move(t, addr, pfn):
    return ('          kscand-36      [001] ...1. %12.6f: remove_migration_pte: '
            'addr=%x, pte=%x order=0\n' % (t, addr, pfn << 12 | 0x8000000000000067))


def marker(t, text):
    return '           <...>-700     [000] ..... %12.6f: tracing_mark_write: %s\n' % (t, text)


def write_run(out, policy, run, trace, end_sampled, lost=0):
    name = os.path.join(out, 'pgbench-quiet-%s-%d' % (policy, run))
    with open(name + '.csv', 'w') as f:
        f.write('range,buffers,0x%x,0x%x\n' % (LO, HI))
        f.writelines('hot,0x%x\n' % a for a in HOT)
        f.write('total,buffer_pages_moved,256\ntotal,buffer_pages,256\n'
                'total,hot_on_node0_at_go,0\ntotal,hot_pages,4\n')
        for i, tps in enumerate((100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)):
            f.write('progress: %d.0 s, %d.0 tps, lat 4.000 ms stddev 1.000, 0 failed\n'
                    % (i + 1, tps))
        f.write('tps = 550.5 (without initial connection time)\n'
                'latency average = 3.240 ms\n'
                'total,hot_on_node0_end,%d\n' % end_sampled)
    with open(name + '.stats', 'w') as f:
        f.write('promote_rate_limit_MBps,200\ntrace_entries_lost,%d\n' % lost)
    with open(name + '.trace', 'w') as f:
        f.write('# tracer: nop\n')
        f.writelines(trace)


class PgbenchReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name
        with open(os.path.join(self.out, 'machine.stats'), 'w') as f:
            f.write(MACHINE)

    def tearDown(self):
        self.tmp.cleanup()

    def report(self):
        p = subprocess.run([sys.executable, SCRIPT, self.out], capture_output=True,
                           text=True, check=True)
        with open(os.path.join(self.out, 'pgbench-summary.csv')) as f:
            rows = {r['policy'] + r['run']: r for r in csv.DictReader(f)}
        with open(os.path.join(self.out, 'pgbench-medians.csv')) as f:
            meds = {r['policy']: r for r in csv.DictReader(f)}
        return rows, meds, p.stdout

    def test_times_shares_and_pgbench(self):
        # kscand: hot pages to node 0 at t0 + 0.5, 1, 2 and 3 s, the first
        # back to node 1 at 4 s; another buffer's page promoted, and a
        # page outside the buffers (not counted). Half of 4 is 2 (t0 + 1),
        # 95% is 3.8, so all 4 (t0 + 3); 3 of 4 on node 0 at the end.
        write_run(self.out, 'kscand', 1, [
            move(99.0, HOT[0], 1500),           # before t0: the move to node 1
            marker(100.0, 'pgbench_t0'),
            move(100.5, HOT[0], 10),
            move(101.0, HOT[1], 11),
            move(101.5, OTHER, 12),
            move(101.6, HI + 4096, 13),
            move(102.0, HOT[2], 14),
            move(103.0, HOT[3], 15),
            move(104.0, HOT[0], 1501),
            marker(130.0, 'pgbench_end'),
        ], 3)
        # none: nothing moves
        write_run(self.out, 'none', 1, [marker(200.0, 'pgbench_t0')], 0)
        rows, meds, stdout = self.report()
        k = rows['kscand1']
        self.assertEqual(k['hot_pages'], '4')
        self.assertEqual(k['t50_s'], '1.00')
        self.assertEqual(k['t95_s'], '3.00')
        self.assertEqual(k['hot_end_pct'], '75.0')
        self.assertEqual(k['hot_end_sampled_pct'], '75.0')
        # one 4 KiB page: 4096 / 2^20 MiB
        self.assertEqual(k['other_promoted_mib'], '%.2f' % (4096 / (1 << 20)))
        self.assertEqual(k['tps'], '550.5')
        self.assertEqual(k['latency_ms'], '3.240')
        # progress: the first five 100-500 (300), the last five 600-1000 (800)
        self.assertEqual(k['tps_first5'], '300.0')
        self.assertEqual(k['tps_last5'], '800.0')
        n = rows['none1']
        self.assertEqual((n['t50_s'], n['t95_s'], n['hot_end_pct']), ('never', 'never', '0.0'))
        self.assertEqual(meds['kscand']['t95_s'], '3')
        self.assertIn('kscand', stdout)

    def test_medians_and_lost_entries(self):
        # three runs whose t95 are 1, 2 and never: median 2, range 1-never
        for run, times in ((1, (1.0,)), (2, (2.0,)), (3, ())):
            trace = [marker(10.0, 'pgbench_t0')]
            trace += [move(10.0 + t, a, 20) for t in times for a in HOT]
            write_run(self.out, 'numab', run, trace, 4 if times else 0,
                      lost=5 if run == 3 else 0)
        rows, meds, stdout = self.report()
        m = meds['numab']
        self.assertEqual((m['t95_s'], m['t95_s_min'], m['t95_s_max']), ('2', '1', 'never'))
        self.assertIn('WARNING: trace entries lost in: numab-3', stdout)

    def test_no_marker_no_row(self):
        write_run(self.out, 'kscand', 1, [move(1.0, HOT[0], 10)], 0)
        write_run(self.out, 'none', 1, [marker(1.0, 'pgbench_t0')], 0)
        p = subprocess.run([sys.executable, SCRIPT, self.out], capture_output=True,
                           text=True, check=True)
        self.assertIn('no row for', p.stderr)
        with open(os.path.join(self.out, 'pgbench-summary.csv')) as f:
            self.assertEqual([r['policy'] for r in csv.DictReader(f)], ['none'])


if __name__ == '__main__':
    unittest.main()
