# The series and its harness. See README.md.
#   make tree     build/linux = Debian's 7.3 source (tag base), a branch per
#                 posting of patches/ and their merge (branch series);
#                 build/linux-6.12 = Debian's 6.12 + backport-6.12/
#   make build    configure and build the kernel into build/obj
#   make check    checkpatch, bisect builds, W=1/sparse, selftests and
#                 event formats in the VM; ends with "N passed, N failed"
#   make run      boot, record the rmap and kscand events under workloads,
#                 summarize
#   make bench    kscand against NUMA balancing tiering and DAMON in seven
#                 regimes of tier-bench and under pgbench, 3 runs each
#                 (47 min here): medians, build/bench/summary.csv,
#                 build/bench/*.png
#   make stress   the debug kernel's run of make check, with STRESS_S
#                 seconds of stress (default 600)
#   make matrix   HEAD built in each configs/matrix/ configuration
#   make export   write build/linux's postings back to patches/ (and
#                 build/linux-6.12's series to backport-6.12/)
#   make deps     install the Debian packages the project needs
#   make clean    remove build/ (ccache keeps its objects)

.PHONY: all deps tree build check run bench stress matrix export clean
all: check

deps:
	@scripts/install-deps

tree:
	@scripts/tree
	@BACKPORT=1 scripts/tree

build:
	@[ -d build/linux/.git ] || scripts/tree
	@scripts/build bzImage

check:
	@scripts/check

run:
	@scripts/run

bench:
	@scripts/install-deps
	@scripts/bench

stress:
	@[ -d build/linux/.git ] || scripts/tree
	@STRESS_S=$${STRESS_S:-600} scripts/check-debug

matrix:
	@scripts/matrix

export:
	@scripts/export
	@[ ! -d build/linux-6.12/.git ] || BACKPORT=1 scripts/export

clean:
	rm -rf build
