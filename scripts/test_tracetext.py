# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the report parsers (tracetext.py, promote-summary) on a
recorded sample: testdata/promote-report.txt is "trace-cmd report" of
kscand:* and promote:* recorded by make run (trace-cmd 3.1, the series'
kernel in QEMU), cut to a few hundred lines.

  python3 -m unittest discover -s scripts -p 'test_*.py'
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tracetext  # noqa: E402

SAMPLE = os.path.join(HERE, 'testdata', 'promote-report.txt')
SUMMARY = os.path.join(HERE, 'promote-summary')


def sample_lines():
    with open(SAMPLE) as f:
        return f.readlines()


class ParseLine(unittest.TestCase):
    def test_event_line(self):
        ev = tracetext.parse_line(
            '        kscand-38    [001]   123.456789: promote_candidate:    source=kscand '
            'tgid=271 pfn=0x12f400 nr_pages=1 nid=1 target_nid=0 hotness=200 '
            'threshold=2000 reason=room')
        self.assertEqual((ev['task'], ev['pid'], ev['cpu'], ev['event']),
                         ('kscand', 38, 1, 'promote_candidate'))
        self.assertAlmostEqual(ev['time'], 123.456789)
        self.assertEqual(ev['fields']['pfn'], '0x12f400')
        self.assertEqual(ev['fields']['reason'], 'room')
        self.assertTrue(ev['text'].startswith('source=kscand'))

    def test_task_with_spaces_and_dashes_and_flags(self):
        ev = tracetext.parse_line(
            ' Web Content-x-1234 [000] d..2.     5.000001: promote:promote_result: '
            'source=numab tgid=81 pfn=0x13fe34 nr_pages=1 nr_promoted=1 nid=1 '
            'target_nid=0 reason=promoted err=0')
        self.assertEqual((ev['task'], ev['pid'], ev['cpu']), ('Web Content-x', 1234, 0))
        self.assertEqual((ev['event'], ev['name']), ('promote:promote_result', 'promote_result'))
        self.assertEqual(ev['fields']['err'], '0')

    def test_number(self):
        ev = tracetext.parse_line(
            '  kscand-35 [000] 20.1: kscand_scan_end: tgid=301 start=0x0 end=140727000000000')
        self.assertEqual([tracetext.number(ev, f) for f in ('tgid', 'start', 'end', 'hot')],
                         [301, 0, 140727000000000, 0])
        self.assertIsNone(tracetext.number(ev, 'hot', None))

    def test_not_events(self):
        for line in ('cpus=2', 'version = 7', '', 'CPU 1 is empty',
                     '# tracer: nop'):
            self.assertIsNone(tracetext.parse_line(line), line)


class RawTrace(unittest.TestCase):
    """tracefs' own text (an instance's "trace" file, make bench's
    RUN.trace): the "#" header, the flags column always there."""

    def test_header(self):
        for line in ('# tracer: nop', '#',
                     '# entries-in-buffer/entries-written: 33724/33724   #P:2',
                     '#                              | / _---=> hardirq/softirq',
                     '#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION',
                     '#              | |         |   |||||     |         |'):
            self.assertIsNone(tracetext.parse_line(line), line)

    def test_comma_separated_fields(self):
        ev = tracetext.parse_line(
            '          kscand-36      [001] ...1.   555.037631: remove_migration_pte: '
            'addr=7fcaab200000, pte=80000000098a2047 order=0\n')
        self.assertEqual((ev['task'], ev['pid'], ev['cpu'], ev['event']),
                         ('kscand', 36, 1, 'remove_migration_pte'))
        self.assertEqual(ev['time'], 555.037631)
        self.assertEqual(ev['fields'], {'addr': '7fcaab200000', 'pte': '80000000098a2047',
                                        'order': '0'})
        # a comma inside a value is the value's
        ev = tracetext.parse_line('  x-1 [000] ..... 1.000000: e: nodes=0,1, n=2,')
        self.assertEqual(ev['fields'], {'nodes': '0,1', 'n': '2'})

    def test_kdamond(self):
        ev = tracetext.parse_line('       kdamond.0-312     [000] .....   520.100000: '
                                  'damos_esz: ctx_idx=0 scheme_idx=0 esz=1048576')
        self.assertEqual((ev['task'], ev['pid'], ev['event']), ('kdamond.0', 312, 'damos_esz'))
        self.assertEqual(ev['fields']['esz'], '1048576')


class Sample(unittest.TestCase):
    def test_every_event_line_parsed(self):
        lines = sample_lines()
        n = sum(1 for ln in lines if ': promote_' in ln or ': kscand_' in ln)
        self.assertGreater(n, 0)
        self.assertEqual(len(list(tracetext.events(lines))), n)

    def test_filter_by_name(self):
        lines = sample_lines()
        n = sum(1 for ln in lines if ' promote_candidate: ' in ln)
        got = list(tracetext.events(lines, ('promote_candidate',)))
        self.assertEqual(len(got), n)
        for ev in got:
            self.assertIn(ev['fields']['source'], ('numab', 'damon', 'kscand'))
            self.assertEqual(set(ev['fields']) >= {'pfn', 'nid', 'target_nid',
                                                   'hotness', 'threshold', 'reason'}, True)

    def test_summary_counts(self):
        lines = sample_lines()
        cands = [ln for ln in lines if ' promote_candidate: ' in ln]
        results = [ln for ln in lines if ' promote_result: ' in ln]
        moved = sum(int(ln.split('nr_promoted=')[1].split()[0]) for ln in results)
        out = subprocess.run([SUMMARY], stdin=open(SAMPLE), capture_output=True,
                             text=True, check=True).stdout
        self.assertIn('kscand: %d candidates judged' % len(cands), out)
        self.assertIn('%d moved' % moved, out)


class Bench(unittest.TestCase):
    def test_medians_and_missing_runs(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'promote-reasons.csv'), 'w', newline='') as f:
                w = csv.writer(f)
                w.writerow('regime,condition,policy,run,event,source,reason,pages,events'
                           .split(','))
                w.writerow('full,quiet,numab,1,promote_candidate,numab,cold,100,100'
                           .split(','))
                w.writerow('full,quiet,numab,2,promote_candidate,numab,cold,300,300'
                           .split(','))
                w.writerow('full,quiet,numab,3,promote_candidate,numab,cold,200,200'
                           .split(','))
                # target_full in one run of three: the others had none
                w.writerow('full,quiet,numab,2,promote_result,numab,target_full,7,7'
                           .split(','))
            with open(os.path.join(d, 'promote-events.csv'), 'w') as f:
                f.write('regime,condition,policy,run,run_s,candidate_events,'
                        'result_events,events_per_s\n'
                        'full,quiet,numab,1,60.0,100,0,2\n'
                        'full,quiet,numab,2,60.0,300,7,5\n'
                        'full,quiet,numab,3,60.0,200,0,3\n')
            out = subprocess.run([SUMMARY, '--bench', d], capture_output=True,
                                 text=True, check=True).stdout
        self.assertIn('full quiet numab: 3 runs, promote events 3 [2-5] a second', out)
        self.assertRegex(out, r'candidate +numab +cold +200 \[100-300\] pages +not accessed')
        self.assertRegex(out, r'result +numab +target_full +0 \[0-7\] pages +the target was short')


class Timeline(unittest.TestCase):
    """testdata/timeline.*: a full-regime NUMA balancing run of make bench
    recorded with BENCH_PROMOTE_EVENTS=1 (its "total" lines, and one
    promote event in 97 of its trace)."""

    def test_every_event_in_its_phase_and_second(self):
        run = os.path.join(HERE, 'testdata', 'timeline')
        tot = {}
        with open(run + '.csv') as f:
            for row in csv.reader(f):
                tot[row[1]] = row[2]
        t0 = float(tot['t0_mono_s'])
        move = t0 + float(tot['steady_s'])
        want = {}
        with open(run + '.trace') as f:
            for line in f:
                if ' promote_' not in line:
                    continue
                t = float(line.split(']')[1].split()[1].rstrip(':'))
                if t0 <= t < move:
                    k = ('steady', int(t - t0))
                elif move <= t < move + float(tot['moved_s']):
                    k = ('moved', int(t - move))
                else:
                    continue
                want[k] = want.get(k, 0) + 1
        out = subprocess.run([SUMMARY, '--timeline', run], capture_output=True,
                             text=True, check=True).stdout
        got, phase = {}, None
        for line in out.splitlines():
            if line.endswith('since the phase began'):
                phase = line.split(':')[0]
            elif line.strip().split()[1:2] == ['s']:
                sec = int(line.split()[0])
                counts = [int(part.split()[-1]) for part in line.split(' s  ')[1].split(', ')]
                got[(phase, sec)] = sum(counts)
        self.assertEqual(got, want)
        self.assertIn('result target_full', out)


if __name__ == '__main__':
    unittest.main()
