// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace: who allocates what in the kernel, live, in the compact view
 * of the 2008 kmemtrace ftrace plugin:
 *
 *   +/- TYPE REQ GIVEN FLAGS PTR NODE CALLER [CACHE]
 *
 * rebuilt from today's kmem trace events (see "kmemtrace's view" in
 * Documentation/trace/events-kmem.rst):
 *
 *   +K kmalloc            -K kfree
 *   +C kmem_cache_alloc   -C kmem_cache_free
 *   +P mm_page_alloc      -P mm_page_free, mm_page_free_batched
 *
 * With no -i, kmemtrace creates a tracing instance of its own
 * (kmemtrace-PID), enables the seven events in it, prints one line per
 * event until interrupted (or -n), then disables the events and removes
 * the instance. -s adds, at the end, what scripts/kmem-view prints: per
 * call site the allocations, bytes requested and given, bytes wasted and
 * the nodes the memory came from; then per type the allocations not seen
 * freed and the frees of memory not seen allocated.
 *
 * Input files (-i): Debian bookworm ships libtracecmd (libtracecmd-dev
 * 3.1.6, library 1.3.1), so a trace.dat written by "trace-cmd record" is
 * read directly with tracecmd_open() and tracecmd_iterate_events() when
 * kmemtrace is built with HAVE_LIBTRACECMD (tools/mm/Makefile defines it
 * when pkg-config finds libtracecmd). libtracecmd is not everywhere, so
 * the text of "trace-cmd report" or of tracefs' trace file is always
 * accepted too, as scripts/kmem-view does: -i FILE.txt, or -i - for
 * standard input. The kind of file is told by the trace.dat magic.
 *
 * Older kernels: events or fields that the kernel does not have (nid
 * before it was added to kmalloc, kmem_cache_alloc and mm_page_alloc) are
 * named once on stderr; their columns print "-".
 *
 * Build: make -C tools/mm (needs libtracefs and libtraceevent)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>
#ifdef HAVE_LIBTRACECMD
#include <trace-cmd.h>
#endif

#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

#define POLL_NS		100000000L	/* 100ms between reads when idle */
#define TEXT_PAGE_SIZE	4096		/* text input has no page size */
#define MAX_TOKENS	128

enum {
	EV_KMALLOC,
	EV_KFREE,
	EV_CACHE_ALLOC,
	EV_CACHE_FREE,
	EV_PAGE_ALLOC,
	EV_PAGE_FREE,
	EV_PAGE_FREE_BATCHED,
	NR_EVENTS,
};

struct kmem_event {
	const char *name;
	char sign;			/* '+' allocation, '-' free */
	char type;			/* 'K' kmalloc, 'C' cache, 'P' pages */
	const char *const *want;	/* fields to say are missing */
	struct tep_event *event;
	struct tep_format_field *call_site;
	struct tep_format_field *ptr;	/* ptr, or pfn for pages */
	struct tep_format_field *name_f;	/* the cache (__string) */
	struct tep_format_field *bytes_req;
	struct tep_format_field *bytes_alloc;
	struct tep_format_field *gfp_flags;
	struct tep_format_field *nid;
	struct tep_format_field *order;
	struct tep_print_arg *gfp_arg;	/* __print_flags(gfp_flags, ...) */
	const char *gfp_zero;		/* what show_gfp_flags() prints for 0 */
};

static const char *const want_kmalloc[] = {
	"call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags", "nid", NULL
};
static const char *const want_cache_alloc[] = {
	"call_site", "ptr", "name", "bytes_req", "bytes_alloc", "gfp_flags",
	"nid", NULL
};
static const char *const want_kfree[] = { "call_site", "ptr", NULL };
static const char *const want_cache_free[] = {
	"call_site", "ptr", "name", NULL
};
static const char *const want_page_alloc[] = {
	"pfn", "order", "gfp_flags", "nid", NULL
};
static const char *const want_page_free[] = { "pfn", "order", NULL };
static const char *const want_page_free_batched[] = { "pfn", NULL };

static struct kmem_event kmem_events[NR_EVENTS] = {
	[EV_KMALLOC]		= { "kmalloc", '+', 'K', want_kmalloc },
	[EV_KFREE]		= { "kfree", '-', 'K', want_kfree },
	[EV_CACHE_ALLOC]	= { "kmem_cache_alloc", '+', 'C', want_cache_alloc },
	[EV_CACHE_FREE]		= { "kmem_cache_free", '-', 'C', want_cache_free },
	[EV_PAGE_ALLOC]		= { "mm_page_alloc", '+', 'P', want_page_alloc },
	[EV_PAGE_FREE]		= { "mm_page_free", '-', 'P', want_page_free },
	[EV_PAGE_FREE_BATCHED]	= { "mm_page_free_batched", '-', 'P',
				    want_page_free_batched },
};

/* One allocation or free, from a binary record or from a line of text. */
struct kmem_rec {
	char sign;
	char type;
	bool batched;			/* mm_page_free_batched */
	bool null;			/* NULL/ZERO_SIZE_PTR, failed allocation */
	unsigned long long req;
	unsigned long long given;
	unsigned long long key;		/* ptr or pfn, to pair allocs and frees */
	char ptr[40];
	char flags[512];
	char node[16];
	char caller[256];
	char cache[128];
};

/* Per call site totals for -s */
struct site_node {
	char node[16];
	unsigned long count;
};

struct site {
	struct site *next;
	char *name;
	unsigned long allocs;
	unsigned long long req;
	unsigned long long given;
	struct site_node *nodes;
	int nr_nodes;
};

/* Allocations seen and not yet freed, keyed by type and ptr/pfn */
struct live {
	struct live *next;
	unsigned long long key;
	char type;
};

static const char types[] = "KCP";

/* options */
static bool opt_summary;
static bool opt_quiet;
static long opt_max;		/* -n: stop after this many events, 0: never */
static long opt_show = -1;	/* -l: print only the first N, -1: all */
static long opt_sites = 20;	/* -t: call sites in the summary, 0: all */
static int opt_pid = -1;
static const char *opt_comm;
static const char *opt_input;
static unsigned long opt_buffer_kb;

/* filters left to user space (file input, or the kernel refused them) */
static bool filter_pid_user;
static bool filter_comm_user;

static volatile sig_atomic_t stop;
static struct tracefs_instance *live_instance;
static bool live_mode;

static unsigned long events_seen;	/* passing the filters */
static unsigned long events_shown;
static bool progress;
static unsigned long long page_size = TEXT_PAGE_SIZE;

static long long lost_events;
static bool lost_unknown;

static struct site **site_tab;
static size_t site_size, site_nr;

static struct live **live_tab;
static size_t live_size, live_nr;

static unsigned long nr_allocs[3], nr_frees[3], nr_unpaired[3], nr_live[3];

static void usage(FILE *f)
{
	fprintf(f,
"usage: kmemtrace [-s] [-q] [-n N] [-l N] [-t N] [-c COMM] [-p PID]\n"
"                 [-b KB] [-i FILE]\n"
"\n"
"Print the kernel's slab and page allocations and frees, one line each,\n"
"in kmemtrace's compact view:\n"
"  +/- TYPE REQ GIVEN FLAGS PTR NODE CALLER [CACHE]\n"
"TYPE is K (kmalloc/kfree), C (kmem_cache_alloc/kmem_cache_free) or\n"
"P (pages; PTR is the pfn, REQ and GIVEN are PAGE_SIZE << order); NODE\n"
"is the node the memory is on (\"-\" when the kernel's events lack nid).\n"
"Without -i, trace live in a tracing instance of its own until\n"
"interrupted (needs root, or access to tracefs); kmemtrace's own\n"
"allocations are left out.\n"
"\n"
"  -i FILE  read a trace-cmd record file (trace.dat), or the text of\n"
"           \"trace-cmd report\" or of tracefs' trace file (- for stdin)\n"
"  -c COMM  only events of tasks named COMM\n"
"  -p PID   only events of task (thread) PID\n"
"  -n N     stop after N events\n"
"  -l N     print only the first N events (keep counting for -s)\n"
"  -s       at the end, print per call site allocations, bytes requested,\n"
"           given and wasted and the nodes used, then the allocations\n"
"           not freed and the frees of memory not seen allocated\n"
"  -t N     call sites in the -s table (default 20, 0 for all)\n"
"  -q       do not print the events (with -s: the summary only)\n"
"  -b KB    per-CPU buffer size of the instance, in KiB\n"
"  -h       this help\n");
}

static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void cleanup_instance(void)
{
	struct tracefs_instance *inst = live_instance;

	if (!inst)
		return;
	live_instance = NULL;
	tracefs_trace_off(inst);
	tracefs_event_disable(inst, "kmem", NULL);
	if (tracefs_instance_destroy(inst) < 0)
		fprintf(stderr, "kmemtrace: could not remove instance %s: %s\n",
			tracefs_instance_get_name(inst), strerror(errno));
	tracefs_instance_free(inst);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kmemtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	cleanup_instance();
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (live_instance)
		tracefs_iterate_stop(live_instance);
}

static void setup_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a read or a sleep returns early */
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Bounded string append */
static void cat(char *buf, size_t size, const char *s)
{
	size_t len = strnlen(buf, size);

	if (len + 1 < size)
		snprintf(buf + len, size - len, "%s", s);
}

/* ----- hash tables ----- */

static unsigned long hash_str(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static unsigned long hash_key(char type, unsigned long long key)
{
	key ^= (unsigned long long)type << 56;
	key *= 0x9e3779b97f4a7c15ULL;
	return (unsigned long)(key >> 20);
}

static void site_grow(void)
{
	size_t size = site_size ? site_size * 2 : 256;
	struct site **tab = xcalloc(size, sizeof(*tab));
	struct site *s, *next;
	size_t i;

	for (i = 0; i < site_size; i++) {
		for (s = site_tab[i]; s; s = next) {
			next = s->next;
			s->next = tab[hash_str(s->name) & (size - 1)];
			tab[hash_str(s->name) & (size - 1)] = s;
		}
	}
	free(site_tab);
	site_tab = tab;
	site_size = size;
}

static struct site *site_get(const char *name)
{
	struct site *s;
	unsigned long h;

	if (site_nr >= site_size)
		site_grow();
	h = hash_str(name) & (site_size - 1);
	for (s = site_tab[h]; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	s = xcalloc(1, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		die("out of memory");
	s->next = site_tab[h];
	site_tab[h] = s;
	site_nr++;
	return s;
}

static bool node_before(const char *a, const char *b)
{
	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return strcmp(b, "-") == 0 && strcmp(a, "-") != 0;
	return atoi(a) < atoi(b);
}

static void site_add_node(struct site *s, const char *node)
{
	struct site_node *n;
	int i;

	for (i = 0; i < s->nr_nodes; i++) {
		if (!strcmp(s->nodes[i].node, node)) {
			s->nodes[i].count++;
			return;
		}
	}
	n = realloc(s->nodes, (s->nr_nodes + 1) * sizeof(*n));
	if (!n)
		die("out of memory");
	s->nodes = n;
	/* keep them in node order, "-" (no nid field) last */
	for (i = s->nr_nodes; i > 0 && node_before(node, n[i - 1].node); i--)
		n[i] = n[i - 1];
	snprintf(n[i].node, sizeof(n[i].node), "%s", node);
	n[i].count = 1;
	s->nr_nodes++;
}

static void live_grow(void)
{
	size_t size = live_size ? live_size * 2 : 4096;
	struct live **tab = xcalloc(size, sizeof(*tab));
	struct live *l, *next;
	unsigned long h;
	size_t i;

	for (i = 0; i < live_size; i++) {
		for (l = live_tab[i]; l; l = next) {
			next = l->next;
			h = hash_key(l->type, l->key) & (size - 1);
			l->next = tab[h];
			tab[h] = l;
		}
	}
	free(live_tab);
	live_tab = tab;
	live_size = size;
}

static struct live **live_find(char type, unsigned long long key)
{
	struct live **pl;

	if (!live_size)
		return NULL;
	pl = &live_tab[hash_key(type, key) & (live_size - 1)];
	for (; *pl; pl = &(*pl)->next)
		if ((*pl)->type == type && (*pl)->key == key)
			return pl;
	return NULL;
}

static void live_add(char type, unsigned long long key)
{
	struct live *l;
	unsigned long h;

	if (live_find(type, key))
		return;
	if (live_nr >= live_size)
		live_grow();
	l = xcalloc(1, sizeof(*l));
	l->type = type;
	l->key = key;
	h = hash_key(type, key) & (live_size - 1);
	l->next = live_tab[h];
	live_tab[h] = l;
	live_nr++;
	nr_live[strchr(types, type) - types]++;
}

static bool live_del(char type, unsigned long long key)
{
	struct live **pl = live_find(type, key);
	struct live *l;

	if (!pl)
		return false;
	l = *pl;
	*pl = l->next;
	free(l);
	live_nr--;
	nr_live[strchr(types, type) - types]--;
	return true;
}

/* ----- output and accounting ----- */

static void print_header(void)
{
	if (opt_quiet)
		return;
	printf("+/- T      REQ    GIVEN %-40s %-18s %4s %s\n",
	       "FLAGS", "PTR", "NODE", "CALLER");
}

/* The call site without its offset: "getname+0x1f/0x40" -> "getname" */
static void site_name(const char *caller, char *buf, size_t size)
{
	char *p;

	snprintf(buf, size, "%s", caller);
	p = strstr(buf, "+0x");
	if (p && p[3] && strspn(p + 3, "0123456789abcdefx/") == strlen(p + 3))
		*p = '\0';
	if (!*buf)
		snprintf(buf, size, "-");
}

static void account(const struct kmem_rec *r)
{
	int t = strchr(types, r->type) - types;
	char name[256];
	struct site *s;
	char other;

	if (r->sign == '+') {
		site_name(r->caller, name, sizeof(name));
		s = site_get(name);
		s->allocs++;
		s->req += r->req;
		s->given += r->given;
		site_add_node(s, r->node);
		nr_allocs[t]++;
		if (!r->null)
			live_add(r->type, r->key);
		return;
	}
	if (r->null)
		return;			/* kfree(NULL) */
	if (r->batched) {
		/*
		 * Pages freed in a batch emit mm_page_free, then
		 * mm_page_free_batched: count the second only if the first
		 * was not seen.
		 */
		if (live_del('P', r->key))
			nr_frees[t]++;
		return;
	}
	nr_frees[t]++;
	if (live_del(r->type, r->key))
		return;
	/* kfree() also frees kmem_cache objects, kmem_cache_free() kmalloc's */
	other = r->type == 'K' ? 'C' : r->type == 'C' ? 'K' : 0;
	if (other && live_del(other, r->key))
		return;
	nr_unpaired[t]++;
}

/* Returns 1 when -n is reached */
static int emit(const struct kmem_rec *r)
{
	events_seen++;
	progress = true;
	if (!opt_quiet) {
		if (opt_show < 0 || (long)events_shown < opt_show) {
			events_shown++;
			if (r->sign == '+')
				printf("+ %c %8llu %8llu %-40s %-18s %4s %s",
				       r->type, r->req, r->given, r->flags,
				       r->ptr, r->node, r->caller);
			else
				printf("- %c %8s %8s %-40s %-18s %4s %s",
				       r->type, "-", "-", "-", r->ptr, "-",
				       r->caller);
			if (r->cache[0])
				printf("  [%s]", r->cache);
			putchar('\n');
		}
	}
	if (opt_summary)
		account(r);
	if (opt_max && (long)events_seen >= opt_max) {
		stop = 1;
		return 1;
	}
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = *(const struct site * const *)a;
	const struct site *y = *(const struct site * const *)b;

	if (x->given != y->given)
		return x->given < y->given ? 1 : -1;
	return strcmp(x->name, y->name);
}

static double pct(unsigned long long given, unsigned long long req)
{
	return given ? 100.0 * ((double)given - (double)req) / (double)given : 0;
}

static void print_summary(void)
{
	unsigned long long treq = 0, tgiven = 0;
	unsigned long tallocs = 0;
	struct site **all, *s;
	size_t i, n = 0;
	int j, t;

	if (!opt_summary)
		return;

	all = xcalloc(site_nr + 1, sizeof(*all));
	for (i = 0; i < site_size; i++)
		for (s = site_tab[i]; s; s = s->next)
			all[n++] = s;
	qsort(all, n, sizeof(*all), cmp_site);

	printf("\n%-36s %7s %11s %11s %11s %6s  %s\n", "CALL SITE", "ALLOCS",
	       "REQUESTED", "GIVEN", "WASTED", "%",
	       "NODES (node:allocations)");
	for (i = 0; i < n; i++) {
		s = all[i];
		tallocs += s->allocs;
		treq += s->req;
		tgiven += s->given;
		if (opt_sites && (long)i >= opt_sites)
			continue;
		printf("%-36s %7lu %11llu %11llu %11lld %5.1f%%", s->name,
		       s->allocs, s->req, s->given,
		       (long long)(s->given - s->req), pct(s->given, s->req));
		for (j = 0; j < s->nr_nodes; j++)
			printf(" %s:%lu", s->nodes[j].node, s->nodes[j].count);
		putchar('\n');
	}
	free(all);
	printf("%-36s %7lu %11llu %11llu %11lld %5.1f%%\n", "total", tallocs,
	       treq, tgiven, (long long)(tgiven - treq), pct(tgiven, treq));

	printf("\n%-4s %8s %8s %22s %24s\n", "TYPE", "ALLOCS", "FREES",
	       "ALLOCATED, NOT FREED", "FREED, NOT SEEN ALLOCATED");
	for (t = 0; t < 3; t++)
		printf("%-4c %8lu %8lu %22lu %24lu\n", types[t], nr_allocs[t],
		       nr_frees[t], nr_live[t], nr_unpaired[t]);
	if (lost_events || lost_unknown)
		printf("\n%s%lld events lost in the ring buffer: the pairing above is approximate\n",
		       lost_unknown ? "at least " : "", lost_events);
}

static void print_end(void)
{
	if (!opt_quiet && opt_show >= 0 && events_seen > events_shown)
		printf("... %lu more events\n", events_seen - events_shown);
	print_summary();
	fflush(stdout);
}

/* ----- binary records (live, trace.dat) ----- */

/* true if @arg reads the field @name */
static bool arg_reads(struct tep_print_arg *arg, const char *name)
{
	if (!arg)
		return false;
	if (arg->type == TEP_PRINT_FIELD)
		return arg->field.name && !strcmp(arg->field.name, name);
	if (arg->type == TEP_PRINT_TYPE)
		return arg_reads(arg->typecast.item, name);
	if (arg->type == TEP_PRINT_OP)
		return arg_reads(arg->op.left, name) ||
		       arg_reads(arg->op.right, name);
	return false;
}

/*
 * Find the __print_flags() of @name in an event's print fmt arguments.
 * show_gfp_flags(f) is "(f) ? __print_flags(f, "|", ...) : "none"": the
 * string for 0 is the atom after the ':'.
 */
static struct tep_print_arg *find_flags(struct tep_print_arg *arg,
					const char *name, const char **zero)
{
	struct tep_print_arg *found, *r;

	for (; arg; arg = arg->next) {
		if (arg->type == TEP_PRINT_FLAGS) {
			if (arg_reads(arg->flags.field, name))
				return arg;
		} else if (arg->type == TEP_PRINT_TYPE) {
			found = find_flags(arg->typecast.item, name, zero);
			if (found)
				return found;
		} else if (arg->type == TEP_PRINT_OP) {
			found = find_flags(arg->op.left, name, zero);
			if (found)
				return found;
			found = find_flags(arg->op.right, name, zero);
			if (!found)
				continue;
			r = arg->op.right;
			if (!*zero && arg->op.op && !strcmp(arg->op.op, "?") &&
			    r && r->type == TEP_PRINT_OP && r->op.op &&
			    !strcmp(r->op.op, ":") && r->op.right &&
			    r->op.right->type == TEP_PRINT_ATOM)
				*zero = r->op.right->atom.atom;
			return found;
		}
	}
	return NULL;
}

/* What libtraceevent's eval_flag() does: numbers only */
static long long flag_value(const char *s)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	return (long long)strtoull(s, NULL, 0);
}

/* GFP flags by name, as libtraceevent prints __print_flags() */
static void gfp_string(const struct kmem_event *ke, unsigned long long val,
		       char *buf, size_t size)
{
	struct tep_print_flag_sym *flag;
	const char *delim;
	bool printed = false;
	char hex[32];
	long long fval;

	buf[0] = '\0';
	if (!ke->gfp_arg) {
		snprintf(buf, size, "0x%llx", val);
		return;
	}
	if (!val) {
		snprintf(buf, size, "%s", ke->gfp_zero ? ke->gfp_zero : "0");
		return;
	}
	delim = ke->gfp_arg->flags.delim ? ke->gfp_arg->flags.delim : "|";
	for (flag = ke->gfp_arg->flags.flags; flag && val; flag = flag->next) {
		fval = flag_value(flag->value);
		if (fval <= 0 || (val & fval) != (unsigned long long)fval)
			continue;
		if (printed)
			cat(buf, size, delim);
		cat(buf, size, flag->str);
		printed = true;
		val &= ~fval;
	}
	if (val) {
		if (printed)
			cat(buf, size, delim);
		snprintf(hex, sizeof(hex), "0x%llx", val);
		cat(buf, size, hex);
	}
}

static bool read_field(struct tep_format_field *f, struct tep_record *rec,
		       unsigned long long *val)
{
	if (!f || tep_read_number_field(f, rec->data, val))
		return false;
	/* sign-extend signed fields shorter than 64 bits (nid = -1) */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
	    (*val & (1ULL << (f->size * 8 - 1))))
		*val |= ~0ULL << (f->size * 8);
	return true;
}

static void format_ptr(char *buf, size_t size, unsigned long long val)
{
	/* as libtraceevent's %p, i.e. as "trace-cmd report" prints it */
	if (val)
		snprintf(buf, size, "0x%llx", val);
	else
		snprintf(buf, size, "(nil)");
}

static void format_caller(struct tep_handle *tep, unsigned long long addr,
			  char *buf, size_t size)
{
	unsigned long long start = tep_find_function_address(tep, addr);
	const char *fn = tep_find_function(tep, addr);

	/* as libtraceevent prints %pS; kallsyms unreadable: the address */
	if (fn && start)
		snprintf(buf, size, "%s+0x%llx", fn, addr - start);
	else
		snprintf(buf, size, "0x%llx", addr);
}

static const char *comm_of(struct tep_handle *tep, int pid)
{
	const char *comm = tep_data_comm_from_pid(tep, pid);
	char path[64], buf[64];
	FILE *f;

	if (comm && strcmp(comm, "<...>"))
		return comm;
	if (!live_mode)
		return comm;
	/* live, the kernel refused the comm filter: ask /proc */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return comm;
	if (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		tep_register_comm(tep, buf, pid);
	}
	fclose(f);
	return tep_data_comm_from_pid(tep, pid);
}

static void note_lost(struct tep_record *rec)
{
	static bool hinted;

	if (rec->missed_events > 0)
		lost_events += rec->missed_events;
	else
		lost_unknown = true;
	if (!live_mode)
		return;
	if (rec->missed_events > 0)
		fprintf(stderr, "kmemtrace: CPU %d lost %lld events\n", rec->cpu,
			rec->missed_events);
	else
		fprintf(stderr, "kmemtrace: CPU %d lost events\n", rec->cpu);
	if (!hinted && !opt_buffer_kb)
		fprintf(stderr, "kmemtrace: -b KB enlarges the buffers\n");
	hinted = true;
}

static int handle_record(struct tep_handle *tep, struct tep_event *event,
			 struct tep_record *rec)
{
	unsigned long long val;
	struct kmem_event *ke = NULL;
	struct kmem_rec r;
	const char *s;
	int i, len, pid;

	if (stop)
		return 1;
	if (rec->missed_events)
		note_lost(rec);
	for (i = 0; i < NR_EVENTS; i++) {
		if (kmem_events[i].event && kmem_events[i].event == event) {
			ke = &kmem_events[i];
			break;
		}
	}
	if (!ke)
		return 0;

	if (filter_pid_user || filter_comm_user) {
		pid = tep_data_pid(tep, rec);
		if (filter_pid_user && pid != opt_pid)
			return 0;
		if (filter_comm_user) {
			s = comm_of(tep, pid);
			if (!s || strcmp(s, opt_comm))
				return 0;
		}
	}

	memset(&r, 0, sizeof(r));
	r.sign = ke->sign;
	r.type = ke->type;
	r.batched = ke == &kmem_events[EV_PAGE_FREE_BATCHED];

	if (read_field(ke->ptr, rec, &val)) {
		r.key = val;
		if (ke->type != 'P') {
			format_ptr(r.ptr, sizeof(r.ptr), val);
			r.null = val <= 16;	/* ZERO_OR_NULL_PTR() */
		} else {
			/* a failed page allocation has pfn -1, printed 0 */
			if (ke->ptr->size < 8 && ke->ptr->size > 0)
				val &= (1ULL << (ke->ptr->size * 8)) - 1;
			if (ke->ptr->size > 0 && ke->ptr->size <= 8 &&
			    val == ~0ULL >> (64 - ke->ptr->size * 8))
				val = 0;
			r.null = ke->sign == '+' && !val;
			if (!strcmp(ke->ptr->name, "pfn"))
				snprintf(r.ptr, sizeof(r.ptr), "0x%llx", val);
			else
				format_ptr(r.ptr, sizeof(r.ptr), val);
		}
	} else {
		snprintf(r.ptr, sizeof(r.ptr), "-");
	}

	if (ke->call_site && read_field(ke->call_site, rec, &val))
		format_caller(tep, val, r.caller, sizeof(r.caller));
	else
		snprintf(r.caller, sizeof(r.caller), "-");

	if (ke->name_f) {
		s = tep_get_field_raw(NULL, event, "name", rec, &len, 0);
		if (s && len > 0)
			snprintf(r.cache, sizeof(r.cache), "%.*s",
				 (int)strnlen(s, len), s);
	}

	if (ke->sign == '+') {
		if (ke->type == 'P') {
			val = 0;
			read_field(ke->order, rec, &val);
			r.req = r.given = page_size << (val & 63);
		} else {
			read_field(ke->bytes_req, rec, &r.req);
			read_field(ke->bytes_alloc, rec, &r.given);
		}
		if (read_field(ke->gfp_flags, rec, &val))
			gfp_string(ke, val, r.flags, sizeof(r.flags));
		else
			snprintf(r.flags, sizeof(r.flags), "-");
		if (read_field(ke->nid, rec, &val))
			snprintf(r.node, sizeof(r.node), "%lld", (long long)val);
		else
			snprintf(r.node, sizeof(r.node), "-");
	}
	return emit(&r);
}

/*
 * Find the events and their fields by name. Returns the number of events
 * found; says once which events and fields this kernel (or file) lacks.
 */
static int setup_events(struct tep_handle *tep, bool complain_events)
{
	char missing[1024] = "";
	struct kmem_event *ke;
	struct tep_event *ev;
	const char *const *w;
	int i, found = 0;

	for (i = 0; i < NR_EVENTS; i++) {
		ke = &kmem_events[i];
		ev = tep_find_event_by_name(tep, "kmem", ke->name);
		ke->event = ev;
		if (!ev) {
			if (complain_events)
				fprintf(stderr, "kmemtrace: kernel has no kmem:%s event\n",
					ke->name);
			continue;
		}
		found++;
		ke->call_site = tep_find_field(ev, "call_site");
		ke->ptr = tep_find_field(ev, ke->type == 'P' ? "pfn" : "ptr");
		if (!ke->ptr && ke->type == 'P')	/* before pfn: page */
			ke->ptr = tep_find_field(ev, "page");
		ke->name_f = tep_find_field(ev, "name");
		ke->bytes_req = tep_find_field(ev, "bytes_req");
		ke->bytes_alloc = tep_find_field(ev, "bytes_alloc");
		ke->gfp_flags = tep_find_field(ev, "gfp_flags");
		ke->nid = tep_find_field(ev, "nid");
		ke->order = tep_find_field(ev, "order");
		if (ke->gfp_flags)
			ke->gfp_arg = find_flags(ev->print_fmt.args, "gfp_flags",
						 &ke->gfp_zero);
		for (w = ke->want; *w; w++) {
			if (tep_find_field(ev, *w))
				continue;
			if (!strcmp(*w, "pfn") && ke->ptr)
				continue;
			cat(missing, sizeof(missing), " ");
			cat(missing, sizeof(missing), ke->name);
			cat(missing, sizeof(missing), ".");
			cat(missing, sizeof(missing), *w);
		}
		if (ke->gfp_flags && !ke->gfp_arg)
			fprintf(stderr, "kmemtrace: kmem:%s does not print gfp_flags by name: printing them in hex\n",
				ke->name);
	}
	if (missing[0])
		fprintf(stderr, "kmemtrace: the kmem events lack these fields:%s; their columns print \"-\"\n",
			missing);
	return found;
}

/* ----- live ----- */

static int live_callback(struct tep_event *event, struct tep_record *rec,
			 int cpu, void *data)
{
	(void)cpu;
	return handle_record(data, event, rec);
}

/* Filter @filter on all our events in the instance; false if refused */
static bool set_filter(struct tracefs_instance *inst, const char *filter)
{
	int i;

	for (i = 0; i < NR_EVENTS; i++) {
		if (!kmem_events[i].event)
			continue;
		if (tracefs_event_file_write(inst, "kmem", kmem_events[i].name,
					     "filter", filter) < 0)
			return false;
	}
	return true;
}

static void setup_filters(struct tracefs_instance *inst)
{
	char filter[256], self[64];
	bool comm_ok;
	int i;

	/* leave kmemtrace's own reading and printing out */
	snprintf(self, sizeof(self), "common_pid != %d", (int)getpid());
	if (opt_pid >= 0)
		snprintf(self, sizeof(self), "common_pid == %d", opt_pid);

	comm_ok = opt_comm && !strpbrk(opt_comm, "\"\\");
	if (comm_ok) {
		snprintf(filter, sizeof(filter), "%s && comm == \"%s\"", self,
			 opt_comm);
		if (set_filter(inst, filter))
			return;
	}
	if (!set_filter(inst, self)) {
		/* cannot happen on a kernel with filters: filter here */
		for (i = 0; i < NR_EVENTS; i++)
			if (kmem_events[i].event)
				tracefs_event_file_clear(inst, "kmem",
							 kmem_events[i].name,
							 "filter");
		filter_pid_user = opt_pid >= 0;
	}
	if (opt_comm) {
		fprintf(stderr, "kmemtrace: %s: filtering on comm in kmemtrace\n",
			comm_ok ? "the kernel does not filter on comm" :
				  "COMM has quotes or backslashes");
		filter_comm_user = true;
	}
}

static void load_kallsyms(struct tep_handle *tep)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	if (getdelim(&buf, &size, '\0', f) > 0)
		tep_parse_kallsyms(tep, buf);
	free(buf);
	fclose(f);
}

static int run_live(void)
{
	static const char * const systems[] = { "kmem", NULL };
	struct timespec ts = { 0, POLL_NS };
	const char *mnt = NULL;
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	const char *tdir;
	char path[PATH_MAX], name[64];
	struct stat st;
	int mounted, i, ret = 0;

	live_mode = true;
	mounted = tracefs_tracing_dir_is_mounted(false, &mnt);
	/* mounts tracefs if it can, as trace-cmd and perf do */
	tdir = tracefs_tracing_dir();
	if (!tdir)
		die("tracefs is not mounted and could not be mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	if (mounted == 0)
		fprintf(stderr, "kmemtrace: mounted tracefs on %s\n", tdir);

	snprintf(path, sizeof(path), "%s/events/kmem", tdir);
	if (stat(path, &st) < 0) {
		if (errno == EACCES || errno == EPERM)
			die("needs root (or tracefs access): %s: %s", path,
			    strerror(errno));
		die("kernel has no kmem events (%s: %s)", path,
		    strerror(errno));
	}
	if (access(path, R_OK | X_OK) < 0)
		die("needs root (or tracefs access): %s: %s", path,
		    strerror(errno));
	for (i = 0; i < NR_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/kmem/%s/format", tdir,
			 kmem_events[i].name);
		if (access(path, R_OK) < 0 && errno != ENOENT)
			die("needs root (or tracefs access): %s: %s", path,
			    strerror(errno));
	}

	tep = tracefs_local_events_system(tdir, systems);
	if (!tep)
		die("cannot read the kmem event formats in %s: %s", path,
		    strerror(errno));
	if (!setup_events(tep, true))
		die("kernel has none of the kmem events kmemtrace needs");
	page_size = getpagesize();
	/* tracefs_local_events() loads kallsyms; do it if it did not */
	if (tep_get_function_count(tep) == 0)
		load_kallsyms(tep);
	if (tep_get_function_count(tep) == 0)
		fprintf(stderr, "kmemtrace: could not load /proc/kallsyms: CALLER prints addresses\n");

	snprintf(name, sizeof(name), "kmemtrace-%d", (int)getpid());
	errno = 0;
	inst = tracefs_instance_create(name);
	if (!inst) {
		if (errno == EACCES || errno == EPERM || errno == EROFS)
			die("needs root (or tracefs access) to create instance %s: %s",
			    name, strerror(errno));
		die("cannot create tracing instance %s: %s", name,
		    strerror(errno));
	}
	if (!tracefs_instance_is_new(inst)) {
		tracefs_instance_free(inst);
		die("tracing instance %s exists already, not ours", name);
	}
	live_instance = inst;
	if (stop)
		goto out;

	if (opt_buffer_kb &&
	    tracefs_instance_set_buffer_size(inst, opt_buffer_kb, -1) < 0)
		fprintf(stderr, "kmemtrace: cannot set the buffer size to %lu KiB: %s\n",
			opt_buffer_kb, strerror(errno));

	setup_filters(inst);

	for (i = 0; i < NR_EVENTS; i++) {
		if (!kmem_events[i].event)
			continue;
		if (tracefs_event_enable(inst, "kmem", kmem_events[i].name) < 0)
			die("cannot enable kmem:%s: %s", kmem_events[i].name,
			    strerror(errno));
	}
	tracefs_trace_on(inst);

	print_header();
	while (!stop) {
		progress = false;
		if (tracefs_iterate_raw_events(tep, inst, NULL, 0,
					       live_callback, tep) < 0) {
			fprintf(stderr, "kmemtrace: cannot read the trace buffers: %s\n",
				strerror(errno));
			ret = 1;
			break;
		}
		fflush(stdout);
		if (!progress && !stop)
			nanosleep(&ts, NULL);	/* a signal ends it early */
	}
out:
	cleanup_instance();
	print_end();
	tep_free(tep);
	return ret;
}

/* ----- trace.dat ----- */

static bool is_trace_dat(const char *file)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	char buf[sizeof(magic)];
	bool ret = false;
	FILE *f;

	f = fopen(file, "r");
	if (!f)
		die("%s: %s", file, strerror(errno));
	if (fread(buf, 1, sizeof(buf), f) == sizeof(buf))
		ret = !memcmp(buf, magic, sizeof(magic));
	fclose(f);
	return ret;
}

#ifdef HAVE_LIBTRACECMD
static int tracecmd_callback(struct tracecmd_input *handle,
			     struct tep_record *rec, int cpu, void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(handle);
	struct tep_event *event = tep_find_event_by_record(tep, rec);

	(void)cpu;
	(void)data;
	if (!event)
		return stop;
	return handle_record(tep, event, rec);
}

static int run_trace_dat(const char *file)
{
	struct tracecmd_input **handles;
	struct tep_handle *tep;
	int i, nr;

	handles = xcalloc(1, sizeof(*handles));
	handles[0] = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handles[0])
		die("cannot read %s as a trace-cmd file", file);
	/* the top buffer, and those of trace-cmd record -B: one tep */
	nr = tracecmd_buffer_instances(handles[0]);
	handles = realloc(handles, (nr + 1) * sizeof(*handles));
	if (!handles)
		die("out of memory");
	for (i = 0; i < nr; i++) {
		handles[i + 1] = tracecmd_buffer_instance_handle(handles[0], i);
		if (!handles[i + 1])
			die("cannot read buffer %s of %s",
			    tracecmd_buffer_instance_name(handles[0], i), file);
	}
	tep = tracecmd_get_tep(handles[0]);
	if (!setup_events(tep, false))
		die("%s has none of the kmem events (trace-cmd record -e kmem)",
		    file);
	if (tep_get_page_size(tep) > 0)
		page_size = tep_get_page_size(tep);
	filter_pid_user = opt_pid >= 0;
	filter_comm_user = opt_comm != NULL;

	print_header();
	tracecmd_iterate_events_multi(handles, nr + 1, tracecmd_callback, NULL);
	print_end();
	for (i = nr; i >= 0; i--)
		tracecmd_close(handles[i]);
	free(handles);
	return 0;
}
#else
static int run_trace_dat(const char *file)
{
	die("%s is a trace-cmd record file and kmemtrace was built without libtracecmd: use trace-cmd report -i %s | kmemtrace -i -",
	    file, file);
}
#endif

/* ----- text: trace-cmd report, tracefs' trace ----- */

static const char *val_of(char **tok, int ntok, int from, const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = from; i < ntok; i++)
		if (!strncmp(tok[i], name, len) && tok[i][len] == '=')
			return tok[i] + len + 1;
	return NULL;
}

/* "comm-pid [cpu]", "comm-pid (tgid) [cpu]": comm may hold spaces */
static bool text_task(const char *line, char *comm, size_t size, int *pid)
{
	const char *p, *end = NULL, *dash;
	char head[256];
	size_t len;

	for (p = strchr(line, '['); p; p = strchr(p + 1, '[')) {
		if (p > line && isspace((unsigned char)p[-1]) &&
		    isdigit((unsigned char)p[1])) {
			end = p;
			break;
		}
	}
	if (!end)
		return false;
	while (isspace((unsigned char)*line))
		line++;
	len = end - line;
	if (len >= sizeof(head))
		len = sizeof(head) - 1;
	memcpy(head, line, len);
	head[len] = '\0';
	while (len && isspace((unsigned char)head[len - 1]))
		head[--len] = '\0';
	if (len && head[len - 1] == ')') {	/* tgid column */
		char *paren = strrchr(head, '(');

		if (paren) {
			*paren = '\0';
			len = strlen(head);
			while (len && isspace((unsigned char)head[len - 1]))
				head[--len] = '\0';
		}
	}
	/* trace-cmd report -i file-with-instances: "instance: comm-pid" */
	p = strpbrk(head, " \t");
	if (p && p > head && p[-1] == ':') {
		p += strspn(p, " \t");
		memmove(head, p, strlen(p) + 1);
	}
	dash = strrchr(head, '-');
	if (!dash)
		return false;
	*pid = atoi(dash + 1);
	snprintf(comm, size, "%.*s", (int)(dash - head), head);
	return true;
}

static int text_line(char *line)
{
	char *tok[MAX_TOKENS], *save = NULL, *p, comm[256];
	struct kmem_event *ke = NULL;
	const char *v, *ptr;
	struct kmem_rec r;
	int ntok = 0, ev = -1, i, j, pid;
	size_t len;

	if (filter_pid_user || filter_comm_user) {
		if (!text_task(line, comm, sizeof(comm), &pid))
			return 0;
		if (filter_pid_user && pid != opt_pid)
			return 0;
		if (filter_comm_user && strcmp(comm, opt_comm))
			return 0;
	}

	for (p = strtok_r(line, " \t\n", &save); p && ntok < MAX_TOKENS;
	     p = strtok_r(NULL, " \t\n", &save))
		tok[ntok++] = p;
	for (i = 0; i < ntok && i < 8 && ev < 0; i++) {
		len = strlen(tok[i]);
		if (len < 2 || tok[i][len - 1] != ':')
			continue;
		for (j = 0; j < NR_EVENTS; j++) {
			if (strlen(kmem_events[j].name) == len - 1 &&
			    !strncmp(tok[i], kmem_events[j].name, len - 1)) {
				ke = &kmem_events[j];
				ev = i;
				break;
			}
		}
	}
	if (!ke)
		return 0;

	memset(&r, 0, sizeof(r));
	r.sign = ke->sign;
	r.type = ke->type;
	r.batched = ke == &kmem_events[EV_PAGE_FREE_BATCHED];

	ptr = val_of(tok, ntok, ev + 1, ke->type == 'P' ? "pfn" : "ptr");
	snprintf(r.ptr, sizeof(r.ptr), "%s", ptr ? ptr : "");
	if (ptr) {
		/* "0xffff...", hashed "00000000a1b2c3d4", or "(nil)" */
		r.key = strtoull(ptr, NULL, 16);
		if (!strcmp(ptr, "(nil)") || !strcmp(ptr, "(null)"))
			r.key = 0;
		if (ke->type != 'P')
			r.null = r.key == 0;
		else
			r.null = ke->sign == '+' && r.key == 0;
	}
	v = ke->type == 'P' ? NULL : val_of(tok, ntok, ev + 1, "call_site");
	snprintf(r.caller, sizeof(r.caller), "%s", v ? v : "-");
	v = val_of(tok, ntok, ev + 1, "name");
	snprintf(r.cache, sizeof(r.cache), "%s", v ? v : "");

	if (ke->sign == '+') {
		if (ke->type == 'P') {
			v = val_of(tok, ntok, ev + 1, "order");
			r.req = r.given = (unsigned long long)TEXT_PAGE_SIZE <<
					  (v ? atoi(v) & 63 : 0);
		} else {
			v = val_of(tok, ntok, ev + 1, "bytes_req");
			r.req = v ? strtoull(v, NULL, 10) : 0;
			v = val_of(tok, ntok, ev + 1, "bytes_alloc");
			r.given = v ? strtoull(v, NULL, 10) : 0;
		}
		v = val_of(tok, ntok, ev + 1, "gfp_flags");
		snprintf(r.flags, sizeof(r.flags), "%s", v ? v : "");
		v = val_of(tok, ntok, ev + 1, "nid");
		snprintf(r.node, sizeof(r.node), "%s", v ? v : "-");
	}
	return emit(&r);
}

static int run_text(const char *file)
{
	char *line = NULL;
	size_t size = 0;
	FILE *f = stdin;

	if (strcmp(file, "-")) {
		f = fopen(file, "r");
		if (!f)
			die("%s: %s", file, strerror(errno));
	}
	filter_pid_user = opt_pid >= 0;
	filter_comm_user = opt_comm != NULL;

	print_header();
	while (!stop && getline(&line, &size, f) >= 0)
		if (text_line(line))
			break;
	free(line);
	if (f != stdin)
		fclose(f);
	print_end();
	return 0;
}

static long parse_num(const char *s, const char *opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0) {
		fprintf(stderr, "kmemtrace: bad number for %s: %s\n", opt, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "b:c:hi:l:n:p:qst:")) != -1) {
		switch (c) {
		case 'b':
			opt_buffer_kb = parse_num(optarg, "-b");
			break;
		case 'c':
			opt_comm = optarg;
			break;
		case 'i':
			opt_input = optarg;
			break;
		case 'l':
			opt_show = parse_num(optarg, "-l");
			break;
		case 'n':
			opt_max = parse_num(optarg, "-n");
			break;
		case 'p':
			opt_pid = parse_num(optarg, "-p");
			break;
		case 'q':
			opt_quiet = true;
			break;
		case 's':
			opt_summary = true;
			break;
		case 't':
			opt_sites = parse_num(optarg, "-t");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	setup_signals();
	if (!opt_input)
		return run_live();
	if (strcmp(opt_input, "-") && is_trace_dat(opt_input))
		return run_trace_dat(opt_input);
	return run_text(opt_input);
}
