# SPDX-License-Identifier: GPL-2.0
"""Read the text of "trace-cmd report" (trace-cmd 3.1, Debian 12), and
the kernel's own text of a trace buffer (tracefs' "trace" file, e.g. an
instance's, as scripts/vm-bench saves it in make bench's RUN.trace).

One event a line:

    <task>-<pid> [<cpu>] [<flags>] <seconds>: <event>: <name>=<value> ...

where the task's name may hold spaces and dashes, the flags column is
there with "trace-cmd report -l" only, and always in tracefs' text, and
the event's own text follows its print format. parse_line() returns a
dict (task, pid, cpu, time, event, name, text, fields) or None for a
line that is not an event (the "cpus=N" header, a "version" line, a
blank, the "#" header of tracefs' text). event is as printed, with the
system before it where trace-cmd printed one ("kscand:kscand_scan_end"),
name without it. fields maps each "name=value" of the text to its value
as printed (a string): the events of this series print their fields that
way. A comma that ends a value is the print format's separator, not the
value's ("addr=7fca0000, pte=8000... order=0" of
migrate:remove_migration_pte). The columns are ASCII, and so are the
patterns' blanks, digits and word characters: a task's name may hold any
character, a no-break space too.
"""

import re

_LINE = re.compile(
    r'^\s*(?P<task>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+'
    r'(?:[^\s:]+\s+)?'  # the latency flags ("report -l", tracefs' text)
    r'(?P<time>\d+\.\d+):\s+(?P<event>[\w:]+):\s*(?P<text>.*?)\s*$', re.ASCII)
_FIELD = re.compile(r'(\w+)=(\S*?),?(?=\s|$)', re.ASCII)


def parse_line(line):
    """The event of one report line, or None."""
    m = _LINE.match(line.rstrip('\n'))
    if not m:
        return None
    ev = m.groupdict()
    ev['pid'] = int(ev['pid'])
    ev['cpu'] = int(ev['cpu'])
    ev['time'] = float(ev['time'])
    ev['name'] = ev['event'].rpartition(':')[2]
    ev['fields'] = dict(_FIELD.findall(ev['text']))
    return ev


def events(lines, names=None):
    """The events of an iterable of report lines; only those whose name
    (without the system) is in names, if given."""
    for line in lines:
        ev = parse_line(line)
        if ev is None:
            continue
        if names is not None and ev['name'] not in names:
            continue
        yield ev


def number(ev, field, missing=0):
    """The event's field as an integer (decimal, or hex after "0x"); missing
    when the event has no such field (trace-cmd printed it short)."""
    value = ev['fields'].get(field)
    return missing if value is None else int(value, 0)
