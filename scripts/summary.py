# SPDX-License-Identifier: GPL-2.0
"""What the trace summaries (rmap-, kscand-, pcp-, dax-summary) and
stress-trace share beyond tracetext.py: reading and printing bytes as they
are, reading a value as a number, and printing in the order the awk
versions of these scripts did (the expected outputs of test_summaries.py
are theirs).
"""

import decimal
import re
import sys

SUBSEP = '\x1c'  # awk's, between a key's parts: str.split() takes it for a blank


def stdio():
    """stdin and stdout byte for byte: a task's name is whatever bytes the
    kernel has, and latin-1 reads each byte as one character (awk's
    printf widths counted bytes); lines end at "\\n" only."""
    sys.stdin.reconfigure(encoding='latin-1', newline='\n')
    sys.stdout.reconfigure(encoding='latin-1', newline='\n')


def read_text(path):
    with open(path, encoding='latin-1', newline='\n') as f:
        return f.read()


def lines_of(text):
    """The lines of a file's text, as "while read" and paste see them: the
    last one without its newline too."""
    lines = text.split('\n')
    if lines[-1] == '':
        lines.pop()
    return lines


def fields(s):
    """s split as awk splits a record: at runs of spaces, tabs and
    newlines, those at either end dropped."""
    s = s.strip(' \t\n')
    return re.split('[ \t\n]+', s) if s else []


_STRTOD = re.compile(
    r'[ \t\n\v\f\r]*([-+]?)(?:'
    r'0[xX](?=\.?[0-9a-fA-F])([0-9a-fA-F]*(?:\.[0-9a-fA-F]*)?(?:[pP][-+]?[0-9]+)?)'
    r'|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)'
    r'|([iI][nN][fF]|[nN][aA][nN]))')


def num(s):
    """A value as awk reads it as a number (strtod()): its leading number,
    0 for none (a field the line lacks, "[FAILED TO PARSE]")."""
    m = _STRTOD.match(s)
    if not m:
        return 0.0
    sign, hexa, dec, special = m.groups()
    if hexa is not None:
        v = float.fromhex('0x' + hexa)
    elif dec is not None:
        v = float(dec)
    else:
        v = float(special)
    return -v if sign == '-' else v


def d(x):
    """x as printf's %d prints it: its integer part (mawk 1.3.4 printed
    +-2147483647 for any beyond, the awk versions' sums too); what is no
    finite number as mawk printed it."""
    if x != x:
        return -2147483647
    if x in (float('inf'), float('-inf')):
        return 2147483647 if x > 0 else -2147483647
    return int(x)


def key(x):
    """A number as awk makes it a string (an array subscript): an integer
    as one, other values with CONVFMT, %.6g."""
    if x == x and abs(x) <= 2147483647 and x == int(x):
        return '%d' % x
    return '%.6g' % x


def _fnv1(s):
    h = 2166136261
    for c in s.encode('latin-1'):
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h


def in_order(last):
    """The keys of an awk array in the order mawk 1.3.4 (Debian's awk)
    walks them with "for (k in a)", which printed the rmap histogram's
    columns, the remote drains of pcp-summary and the processes of
    stress-report's kscand check: by the list its hash (FNV-1) puts the key
    in, of 64, doubled each time the array passes 12 keys a list, and
    within a list the key used last first. last maps each key (a string, as
    awk's subscripts are) to when it was last used (any increasing
    count)."""
    hmask = 63
    while len(last) > (hmask + 1) * 12:
        hmask = hmask * 2 + 1
    return sorted(last, key=lambda k: (_fnv1(k) & hmask, -last[k]))


# sort(1)'s fields: a field is the blanks before it and what follows up to
# the next blank
_FIELD = re.compile('[ \t\n]*[^ \t\n]*')
_SORTNUM = re.compile(r'[ \t\n]*(-?)([0-9]*)(?:\.([0-9]*))?')


def sort_key(line, first, last=None):
    """sort -kFIRST[,LAST]'s key of a line (no -b, no -t): from field FIRST
    to the end of field LAST, or of the line."""
    pos = 0
    for _ in range(first - 1):
        pos = _FIELD.match(line, pos).end()
    if last is None:
        return line[pos:]
    end = pos
    for _ in range(last - first + 1):
        end = _FIELD.match(line, end).end()
    return line[pos:end]


def sort_num(s):
    """A key's value as sort -n reads it: the number it begins with (no
    sign but "-", no exponent), 0 for none; exact."""
    m = _SORTNUM.match(s)
    sign, whole, frac = m.groups()
    return decimal.Decimal('%s%s.%s' % (sign, whole or '0', frac or '0'))
