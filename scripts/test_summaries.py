# SPDX-License-Identifier: GPL-2.0
"""Unit tests of rmap-, kscand-, pcp-, dax-summary and stress-report (with
stress-trace) on samples: each prints, exits with and writes what the awk
versions of these scripts (b5ab97b) did on the same input, recorded in
testdata/expected/, but where testdata/README says otherwise.

  python3 -m unittest discover -s scripts -p 'test_*.py'

testdata/expected/ is made by the scripts of a directory, the awk ones
taken out of git for instance:

  git show b5ab97b:scripts/rmap-summary >/tmp/old/rmap-summary ... (and
  kscand-summary, pcp-summary, dax-summary, stress-report, lib.sh)
  python3 scripts/test_summaries.py --expect /tmp/old
"""

import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summary  # noqa: E402
import tracetext  # noqa: E402

DATA = os.path.join(HERE, 'testdata')
EXPECTED = os.path.join(DATA, 'expected')

# case: script, its arguments, its stdin (in testdata/)
SUMMARIES = {
    'rmap-report': ('rmap-summary', [], 'rmap-report.txt'),
    'rmap-edge': ('rmap-summary', [], 'rmap-edge.txt'),
    'rmap-none': ('rmap-summary', [], 'rmap-none.txt'),
    'kscand-promote-report': ('kscand-summary', [], 'promote-report.txt'),
    'kscand-promote-report-75': ('kscand-summary', ['75'], 'promote-report.txt'),
    'kscand-promote-report-999': ('kscand-summary', ['999'], 'promote-report.txt'),
    'kscand-edge': ('kscand-summary', [], 'kscand-edge.txt'),
    'kscand-edge-302': ('kscand-summary', ['302'], 'kscand-edge.txt'),
    'kscand-edge-303': ('kscand-summary', ['303'], 'kscand-edge.txt'),
    'pcp-report': ('pcp-summary', [], 'pcp-report.txt'),
    'pcp-none': ('pcp-summary', [], 'pcp-none.txt'),
    'dax-report': ('dax-summary', [], 'dax-report.txt'),
    'dax-none': ('dax-summary', [], 'dax-none.txt'),
}
# case: stress-report's SYSTEMS on testdata/stress/CASE, a vm-stress OUTDIR
# whose trace.dat is the text a fake trace-cmd reports (and trace.dat.err
# what it says when it fails)
ALL = 'fs_dax kmem kscand promote rmap vmscan'
STRESS = {
    'good': ALL,
    'bad': ALL,
    'overrun': 'kscand rmap',
    'empty': 'kscand rmap',
    'failed': 'rmap',
    'bytes': 'rmap',
}
FAKE_TRACE_CMD = '''#!/bin/sh
[ "$1 $2" = "report -i" ] || exit 2
cat "$3"
if [ -f "$3.err" ]; then cat "$3.err" >&2; exit 1; fi
'''
# not compared: what the fake trace-cmd wrote, the awk version's scratch
# files (no longer written)
UNCOMPARED = ('report.txt', 'report.err', 'sorted-')


def env(tmp):
    e = dict(os.environ, LC_ALL='C.UTF-8', BUILD=os.path.join(tmp, 'build'))
    e.pop('RESULTS', None)
    return e


def run_summary(scripts, case):
    script, args, stdin = SUMMARIES[case]
    with tempfile.TemporaryDirectory() as tmp, open(os.path.join(DATA, stdin), 'rb') as f:
        p = subprocess.run([os.path.join(scripts, script)] + args, stdin=f,
                           capture_output=True, env=env(tmp))
    return p.returncode, p.stdout, p.stderr, {}


def run_stress(scripts, case):
    """stress-report on a copy of the case's OUTDIR ("out" in a scratch
    directory, the current one): its exit status, stdout, stderr and the
    files it wrote there."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out')
        shutil.copytree(os.path.join(DATA, 'stress', case), out)
        given = set(os.listdir(out))
        os.mkdir(os.path.join(tmp, 'bin'))
        fake = os.path.join(tmp, 'bin', 'trace-cmd')
        with open(fake, 'w') as f:
            f.write(FAKE_TRACE_CMD)
        os.chmod(fake, 0o755)
        e = env(tmp)
        e['PATH'] = os.path.join(tmp, 'bin') + os.pathsep + e['PATH']
        p = subprocess.run([os.path.join(scripts, 'stress-report'), 'out', STRESS[case]],
                           capture_output=True, env=e, cwd=tmp)
        files = {}
        for name in sorted(set(os.listdir(out)) - given):
            if not name.startswith(UNCOMPARED):
                with open(os.path.join(out, name), 'rb') as f:
                    files[name] = f.read()
    return p.returncode, p.stdout, p.stderr, files


def cases():
    for case in SUMMARIES:
        yield case, run_summary
    for case in STRESS:
        yield 'stress-' + case, lambda scripts, c: run_stress(scripts, c[len('stress-'):])


def read(path):
    if not os.path.exists(path):
        return b''
    with open(path, 'rb') as f:
        return f.read()


def expected(case):
    with open(os.path.join(EXPECTED, 'exit-status')) as f:
        rc = dict(line.split() for line in f)[case]
    files = {}
    d = os.path.join(EXPECTED, case)
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        files[name] = read(os.path.join(d, name))
    return (int(rc), read(os.path.join(EXPECTED, case + '.out')),
            read(os.path.join(EXPECTED, case + '.err')), files)


def write_expected(scripts):
    """testdata/expected/ from the scripts in the directory scripts."""
    shutil.rmtree(EXPECTED, ignore_errors=True)
    os.mkdir(EXPECTED)
    status = []
    for case, run in cases():
        rc, out, err, files = run(scripts, case)
        status.append('%s %d\n' % (case, rc))
        with open(os.path.join(EXPECTED, case + '.out'), 'wb') as f:
            f.write(out)
        if err:
            with open(os.path.join(EXPECTED, case + '.err'), 'wb') as f:
                f.write(err)
        if files:
            os.mkdir(os.path.join(EXPECTED, case))
        for name, data in files.items():
            with open(os.path.join(EXPECTED, case, name), 'wb') as f:
                f.write(data)
    with open(os.path.join(EXPECTED, 'exit-status'), 'w') as f:
        f.writelines(status)


class AsTheAwkDid(unittest.TestCase):
    def test_cases(self):
        for case, run in cases():
            with self.subTest(case=case):
                rc, out, err, files = run(HERE, case)
                want = expected(case)
                self.assertEqual(out.decode('latin-1'), want[1].decode('latin-1'))
                self.assertEqual(err.decode('latin-1'), want[2].decode('latin-1'))
                self.assertEqual(rc, want[0])
                self.assertEqual(files, want[3])

    def test_every_case_has_its_output(self):
        with open(os.path.join(EXPECTED, 'exit-status')) as f:
            listed = [line.split()[0] for line in f]
        self.assertEqual(listed, [case for case, _ in cases()])


class Awk(unittest.TestCase):
    """summary.py's part of what awk did, against what mawk 1.3.4 printed."""

    def test_num(self):
        for s, v in (('12', 12), ('0x10', 16), (' 1e3x', 1000), ('-.5e1x', -5),
                     ('  +7', 7), ('0x', 0), ('0x.8', 0.5), ('1e', 1), ('-', 0), ('.', 0),
                     ('', 0), ('[FAILED', 0), ('0X1F', 31), ('1_000', 1)):
            self.assertEqual(summary.num(s), v, s)
        self.assertEqual(summary.num('infinity'), float('inf'))
        self.assertNotEqual(summary.num('nan'), summary.num('nan'))

    def test_d_and_key(self):
        self.assertEqual([summary.d(x) for x in (-3.7, 2147483647, 2147483648, 4e9, -2147483648)],
                         [-3, 2147483647, 2147483648, 4000000000, -2147483648])
        # what mawk printed
        self.assertEqual([summary.d(float(x)) for x in ('inf', '-inf', 'nan')],
                         [2147483647, -2147483647, -2147483647])
        self.assertEqual([summary.key(x) for x in (3.0, -0.0, 1.5, 2147483647, 2 ** 31, 3e9)],
                         ['3', '0', '1.5', '2147483647', '2.14748e+09', '3e+09'])

    def test_in_order(self):
        # mawk: a["b"]; a["a"]; a["10"]; a["9"]; a["c"]; for (k in a) -> 10 c b a 9
        self.assertEqual(summary.in_order({'b': 0, 'a': 1, '10': 2, '9': 3, 'c': 4}),
                         ['10', 'c', 'b', 'a', '9'])
        self.assertEqual(summary.in_order({'anon': 0, 'file': 1, 'ksm': 2}),
                         ['ksm', 'file', 'anon'])

    @unittest.skipUnless(shutil.which('mawk'), 'no mawk')
    def test_in_order_as_mawk(self):
        rnd = random.Random(1)
        for n in (3, 40, 900):
            keys = [str(rnd.randint(1, 99999)) for _ in range(n)]
            used = [rnd.choice(keys) for _ in range(3 * n)]
            p = subprocess.run(['mawk', '{ a[$1]++ } END { for (k in a) print k }'],
                               input='\n'.join(used) + '\n', capture_output=True, text=True)
            self.assertEqual(p.stdout.split('\n')[:-1],
                             summary.in_order({k: i for i, k in enumerate(used)}), n)

    def test_sort_key(self):
        line = 'anon  0      try_to_migrate_one                  15       59.5\n'
        self.assertEqual(summary.sort_key(line, 1, 1), 'anon')
        self.assertEqual(summary.sort_key(line, 4), '                  15       59.5\n')
        self.assertEqual(summary.sort_num(summary.sort_key(line, 4)), 15)
        self.assertEqual(summary.sort_num(' -1.50x'), summary.sort_num('-1.5'))
        self.assertEqual(summary.sort_num('+3'), 0)

    def test_fields(self):
        self.assertEqual(summary.fields(' a\tb  c\x1cd \n'), ['a', 'b', 'c\x1cd'])
        self.assertEqual(summary.fields('  '), [])


class Bytes(unittest.TestCase):
    def test_task_of_any_bytes(self):
        line = b'    caf\xe9 \xa0x-12    [001]     8.1: kscand_mm_enter:      tgid=12\n'
        ev = tracetext.parse_line(line.decode('latin-1'))
        self.assertEqual((ev['task'], ev['pid'], ev['fields']),
                         ('caf\xe9 \xa0x', 12, {'tgid': '12'}))
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([os.path.join(HERE, 'kscand-summary')],
                               input=line.replace(b'enter', b'exit'), capture_output=True,
                               env=env(tmp), check=True)
        self.assertTrue(p.stdout.endswith(b'0 entered, 1 exited while recording\n'))


if __name__ == '__main__':
    if sys.argv[1:2] == ['--expect'] and len(sys.argv) == 3:
        write_expected(os.path.abspath(sys.argv[2]))
    else:
        unittest.main()
