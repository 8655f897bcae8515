# SPDX-License-Identifier: GPL-2.0
"""Unit tests of rmap-, kscand-, pcp-, dax-summary and stress-report (with
stress-trace) on samples: each prints, exits with and writes what
testdata/expected/ holds for the same input: what the awk versions of
these scripts (b5ab97b) did, but for the cases of DIFFERENT, whose
expected output is the Python versions' (testdata/README says how and
why it differs from the awk's).

  python3 -m unittest discover -s scripts -p 'test_*.py'

testdata/expected/ is made by the awk versions in a directory (and the
scripts here, for DIFFERENT):

  git show b5ab97b:scripts/rmap-summary >/tmp/old/rmap-summary ... (and
  kscand-summary, pcp-summary, dax-summary, stress-report, lib.sh)
  python3 scripts/test_summaries.py --expect /tmp/old
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
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
# the cases whose expected output is the Python versions', on purpose
DIFFERENT = {
    'rmap-report': 'kinds of as many walks by type, locked, rmap_one; histogram: anon, file, ksm',
    'rmap-edge': 'the same; a field missing blank; "rmap:rmap_walk_start" begins a walk',
    'kscand-edge': 'a scan from start=0 begins a pass as one from 0x0; sums past 2^31 - 1',
    'kscand-edge-302': 'a scan from start=0 begins a pass as one from 0x0',
    'kscand-edge-303': 'sums past 2^31 - 1 (mawk printed 2147483647)',
    'pcp-report': 'the remote drains by CPU recorded on, then drained',
    'stress-good': 'count-SYSTEM: events of as many events by name',
    'stress-bad': 'the same; "vmscan:mm_shrink_slab_end" an event; the tgids by number',
    'stress-empty': 'an event list without its last newline: all its events',
    'stress-bytes': 'a line that does not parse fails the check (grep: "binary file")',
}
# not compared: what the fake trace-cmd wrote, the awk version's scratch
# files (no longer written)
UNCOMPARED = ('report.txt', 'report.err', 'sorted-')


def env(tmp):
    # stdin and stdout strict: each script says what it does with bytes
    # that are not UTF-8
    e = dict(os.environ, LC_ALL='C.UTF-8', PYTHONIOENCODING='utf-8:strict',
             BUILD=os.path.join(tmp, 'build'))
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


def write_expected(old):
    """testdata/expected/ from the scripts in the directory old, but for
    the cases of DIFFERENT: from the scripts here."""
    shutil.rmtree(EXPECTED, ignore_errors=True)
    os.mkdir(EXPECTED)
    status = []
    for case, run in cases():
        rc, out, err, files = run(HERE if case in DIFFERENT else old, case)
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


class AsExpected(unittest.TestCase):
    def test_cases(self):
        for case, run in cases():
            with self.subTest(case=case):
                rc, out, err, files = run(HERE, case)
                want = expected(case)
                self.assertEqual(out.decode(errors='backslashreplace'),
                                 want[1].decode(errors='backslashreplace'))
                self.assertEqual(err.decode(errors='backslashreplace'),
                                 want[2].decode(errors='backslashreplace'))
                self.assertEqual(rc, want[0])
                self.assertEqual(files, want[3])

    def test_every_case_has_its_output(self):
        with open(os.path.join(EXPECTED, 'exit-status')) as f:
            listed = [line.split()[0] for line in f]
        self.assertEqual(listed, [case for case, _ in cases()])
        self.assertLessEqual(set(DIFFERENT), set(listed))


class Bytes(unittest.TestCase):
    def test_task_of_any_bytes(self):
        # not UTF-8, and a no-break space (UTF-8): a task's name, not a blank
        line = b'\xc2\xa0caf\xe9 x-12    [001]     8.1: kscand_mm_enter:      tgid=12\n'
        ev = tracetext.parse_line(line.decode(errors='surrogateescape'))
        self.assertEqual((ev['task'], ev['pid'], ev['fields']),
                         ('\xa0caf\udce9 x', 12, {'tgid': '12'}))
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
