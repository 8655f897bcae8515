#!/bin/sh
# Offline tests of kmemtrace (no tracing needed). Run from this directory
# after "make" in the parent directory.
set -u
KT=../kmemtrace
CFLAGS="-Wall -Wextra -O2 -DHAVE_LIBTRACECMD $(pkg-config --cflags libtracefs libtraceevent libtracecmd)"
LIBS="$(pkg-config --libs libtracefs libtraceevent libtracecmd)"
fail=0

echo "1. text input vs scripts/kmem-view (differences expected: node order,"
echo "   failed allocation not outstanding, batched page frees)"
sh /work/main/scripts/kmem-view report.txt > view.out
$KT -i report.txt -s -l 40 > kt.out
diff view.out kt.out

if [ -f trace.dat ]; then
	echo "2. trace.dat read by libtracecmd == trace-cmd report text"
	$KT -i trace.dat > dat.out 2>/dev/null
	trace-cmd report -i trace.dat 2>/dev/null | $KT -i - > txt.out
	if cmp -s dat.out txt.out; then echo "   identical ($(wc -l < dat.out) lines)"
	else echo "   DIFFERENT"; fail=1; fi
	echo "3. trace.dat vs kmem-view, all call sites"
	sh /work/main/scripts/kmem-view -s 0 trace.dat > view2.out
	$KT -i trace.dat -s -l 40 -t 0 > kt2.out 2>/dev/null
	diff view2.out kt2.out
fi

echo "4. patched-kernel formats (with nid), records checked against libtraceevent"
gcc $CFLAGS -o fake-patched fake-patched.c $LIBS || fail=1
./fake-patched patched
exit $fail
