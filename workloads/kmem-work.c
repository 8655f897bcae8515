// SPDX-License-Identifier: GPL-2.0
/*
 * Known slab and page allocations, driven from user space, for checking what
 * the kmem trace events and perf kmem report.
 *
 *   kmem-work xattr N SIZE [NODE]  N setxattr() calls with a SIZE-byte value:
 *                                  the kernel copies each value with
 *                                  vmemdup_user() (a kmalloc of SIZE bytes,
 *                                  freed again); NODE binds the task there
 *   kmem-work semundo N [NSEMS]    N children each take a SEM_UNDO semaphore
 *                                  of a set of NSEMS (default 1) and exit: the
 *                                  undo structure (2 * NSEMS bytes and a
 *                                  header) is kmalloc'ed and freed by
 *                                  kvfree_rcu()
 *   kmem-work mmap N               a child maps N separate areas, then unmaps
 *                                  them: maple tree nodes are preallocated
 *                                  with kmem_cache_alloc_bulk(), and the
 *                                  unused ones go back through
 *                                  kmem_cache_free_bulk()
 *   kmem-work xcpu N SIZE          N SIZE-byte datagrams over a unix socket
 *                                  pair, sent on CPU 0 and received by a
 *                                  child on CPU 1: each one's sk_buff and
 *                                  data are allocated on one CPU and freed
 *                                  on the other
 *   kmem-work                      xattr 1000 10240, semundo 64, mmap 1000
 *
 * Each mode prints one line saying what it did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#define MPOL_BIND 2

static int bind_to_node(int node)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8);
}

static int do_xattr(long n, size_t size, int node)
{
	char path[] = "/tmp/kmem-work.XXXXXX";
	char *val = malloc(size);
	int fd = mkstemp(path);
	long i;

	if (!val || fd < 0) {
		perror("kmem-work: xattr setup");
		return 1;
	}
	unlink(path);
	memset(val, 'x', size);
	if (node >= 0 && bind_to_node(node)) {
		perror("kmem-work: set_mempolicy");
		return 1;
	}
	/*
	 * The value is copied in before the filesystem is asked, so the
	 * allocation happens whether or not it supports user xattrs.
	 */
	for (i = 0; i < n; i++)
		fsetxattr(fd, "user.kmem-work", val, size, 0);
	close(fd);
	free(val);
	printf("xattr: %ld setxattr calls of %zu bytes, node %d\n", n, size, node);
	return 0;
}

static int do_semundo(long n, int nsems)
{
	struct sembuf up = { .sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO };
	int id = semget(IPC_PRIVATE, nsems, 0600);
	long i;

	if (id < 0) {
		perror("kmem-work: semget");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(semop(id, &up, 1) ? 1 : 0);
		if (pid < 0 || waitpid(pid, NULL, 0) < 0) {
			perror("kmem-work: fork");
			break;
		}
	}
	semctl(id, 0, IPC_RMID);
	printf("semundo: %ld processes exited holding a SEM_UNDO adjustment\n", i);
	return i == n ? 0 : 1;
}

static int do_mmap(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		char **area = calloc(n, sizeof(*area));
		long i;

		if (!area)
			_exit(1);
		/*
		 * n one-page areas, alternately read-only and writable so that
		 * none merges: the maple tree grows several levels deep, and
		 * each store preallocates nodes for a worst-case split.
		 */
		for (i = 0; i < n; i++) {
			area[i] = mmap(NULL, pg, i & 1 ? PROT_READ :
				       PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (area[i] == MAP_FAILED)
				_exit(1);
		}
		for (i = 0; i < n; i++)
			munmap(area[i], pg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status) {
		perror("kmem-work: mmap child");
		return 1;
	}
	printf("mmap: %ld one-page areas mapped and unmapped in a child\n", n);
	return 0;
}

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int do_xcpu(long n, size_t size)
{
	char *buf = calloc(1, size);
	int sv[2], status;
	long i;
	pid_t pid;

	if (!buf || socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		perror("kmem-work: xcpu setup");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		if (pin_to_cpu(1))
			_exit(1);
		for (i = 0; i < n; i++)
			if (recv(sv[1], buf, size, 0) < 0)
				_exit(1);
		_exit(0);
	}
	if (pid < 0 || pin_to_cpu(0)) {
		perror("kmem-work: xcpu fork or pin");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (send(sv[0], buf, size, 0) < 0) {
			perror("kmem-work: send");
			break;
		}
	if (waitpid(pid, &status, 0) < 0 || status) {
		perror("kmem-work: xcpu child");
		return 1;
	}
	close(sv[0]);
	close(sv[1]);
	free(buf);
	printf("xcpu: %ld datagrams of %zu bytes sent on CPU 0, received on CPU 1\n",
	       i, size);
	return i == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	long n = argc > 2 ? atol(argv[2]) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "xattr") && argc >= 4)
		return do_xattr(n, atol(argv[3]), argc > 4 ? atoi(argv[4]) : -1);
	if (!strcmp(mode, "semundo") && (argc == 3 || argc == 4))
		return do_semundo(n, argc == 4 ? atoi(argv[3]) : 1);
	if (!strcmp(mode, "mmap") && argc == 3)
		return do_mmap(n);
	if (!strcmp(mode, "xcpu") && argc == 4)
		return do_xcpu(n, atol(argv[3]));
	if (!strcmp(mode, "all") && argc == 1)
		return do_xattr(1000, 10240, -1) | do_semundo(64, 1) |
		       do_mmap(1000);
	fprintf(stderr, "usage: kmem-work [xattr N SIZE [NODE] | semundo N [NSEMS] | mmap N |\n"
		"                  xcpu N SIZE]\n");
	return 2;
}
