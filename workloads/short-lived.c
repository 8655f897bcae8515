// SPDX-License-Identifier: GPL-2.0
/*
 * Short-lived processes: what does kscand spend on processes that exit
 * before their hot set could matter?
 *
 *   short-lived N MB MS NODE
 *
 * Forks N children in turn; each writes MB of anonymous memory on node
 * NODE (its VMA bound there while writing, the default policy again
 * after, so that kscand may scan and promote it), lives MS ms more, and
 * exits. Read kscand:kscand_scan_end for the children (tgids above this
 * process's) meanwhile.
 */
#define _GNU_SOURCE
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long mask;
	size_t len;
	int n, ms, i;

	if (argc != 5) {
		fprintf(stderr, "usage: short-lived N MB MS NODE\n");
		return 2;
	}
	n = atoi(argv[1]);
	len = strtoul(argv[2], NULL, 0) << 20;
	ms = atoi(argv[3]);
	mask = 1UL << atoi(argv[4]);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				_exit(1);
			madvise(p, len, MADV_NOHUGEPAGE);
			if (mbind(p, len, MPOL_BIND, &mask, 64, 0))
				_exit(1);
			memset(p, 1, len);
			mbind(p, len, MPOL_DEFAULT, NULL, 0, 0);
			usleep(ms * 1000);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	return 0;
}
