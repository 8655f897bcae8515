// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test: parse kmem event formats with the patched kernel's fields
 * (nid in kmalloc, kmem_cache_alloc, mm_page_alloc) and run hand-built
 * binary records through kmemtrace's handle_record(). Each line is
 * followed by what libtraceevent itself prints for the record (INFO).
 */
#define main kmemtrace_main
#include "../kmemtrace.c"
#undef main

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	static char buf[65536];

	if (!f)
		return NULL;
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static void put(struct tep_event *ev, unsigned char *d, const char *name,
		unsigned long long v)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f) { fprintf(stderr, "no %s.%s\n", ev->name, name); exit(1); }
	memcpy(d + f->offset, &v, f->size);	/* little endian */
}

static void put_str(struct tep_event *ev, unsigned char *d, int *end,
		    const char *name, const char *s)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	unsigned int loc = (unsigned int)(strlen(s) + 1) << 16 | *end;

	memcpy(d + f->offset, &loc, 4);
	strcpy((char *)d + *end, s);
	*end += strlen(s) + 1;
}

static struct tep_handle *tep;

static void run(const char *evname, int pid, const char *kv[][2], int n,
		const char *cache)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "kmem", evname);
	unsigned char d[256] = { 0 };
	struct tep_record rec;
	struct trace_seq s;
	int end = 128, i;

	if (!ev)
		return;

	put(ev, d, "common_type", ev->id);
	put(ev, d, "common_pid", pid);
	for (i = 0; i < n; i++)
		put(ev, d, kv[i][0], strtoull(kv[i][1], NULL, 0));
	if (cache)
		put_str(ev, d, &end, "name", cache);
	memset(&rec, 0, sizeof(rec));
	rec.data = d;
	rec.size = end;
	rec.cpu = 0;
	handle_record(tep, tep_find_event_by_record(tep, &rec), &rec);
	fflush(stdout);
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	printf("    libtraceevent: %s\n", s.buffer);
	trace_seq_destroy(&s);
}

#define RUN(ev, pid, cache, ...) do {					\
	const char *kv[][2] = { __VA_ARGS__ };				\
	run(ev, pid, kv, ARRAY_SIZE(kv), cache);			\
} while (0)

int main(int argc, char **argv)
{
	static const char *evs[] = { "kmalloc", "kfree", "kmem_cache_alloc",
		"kmem_cache_free", "mm_page_alloc", "mm_page_free",
		"mm_page_free_batched" };
	char path[256];
	size_t i, len;
	char *buf;

	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	for (i = 0; i < ARRAY_SIZE(evs); i++) {
		snprintf(path, sizeof(path), "%s/%s", argc > 1 ? argv[1] : "patched", evs[i]);
		buf = slurp(path, &len);
		if (buf && tep_parse_event(tep, buf, len, "kmem"))
			fprintf(stderr, "parse %s failed\n", evs[i]);
	}
	tep_register_function(tep, "getname_flags", 0xffffffff81300000ULL, NULL);
	tep_register_function(tep, "putname", 0xffffffff81300100ULL, NULL);
	tep_register_function(tep, "__kvmalloc_node_noprof", 0xffffffff81400000ULL, NULL);
	tep_register_function(tep, "zz_end", 0xffffffff81500000ULL, NULL);
	tep_register_comm(tep, "bash", 100);
	tep_register_comm(tep, "cc1", 200);

	opt_summary = true;
	page_size = 4096;
	if (argc > 2) { opt_comm = argv[2]; filter_comm_user = true; }
	setup_events(tep, true);
	print_header();
	RUN("kmalloc", 100, NULL, {"call_site", "0xffffffff8130001f"},
	    {"ptr", "0xffff888003a1c000"}, {"bytes_req", "4000"},
	    {"bytes_alloc", "4096"}, {"gfp_flags", "0xcc0"}, {"node", "-1"},
	    {"nid", "1"});
	RUN("kmem_cache_alloc", 200, "dentry", {"call_site", "0xffffffff81300042"},
	    {"ptr", "0xffff888004b2c0c0"}, {"bytes_req", "192"},
	    {"bytes_alloc", "192"}, {"gfp_flags", "0xcd0"}, {"node", "0"},
	    {"nid", "0"});
	RUN("kmalloc", 100, NULL, {"call_site", "0xffffffff81400010"},
	    {"ptr", "0"}, {"bytes_req", "10485760"}, {"bytes_alloc", "12582912"},
	    {"gfp_flags", "0x12cc0"}, {"node", "-1"}, {"nid", "-1"});
	RUN("kmalloc", 100, NULL, {"call_site", "0xffffffff81400010"},
	    {"ptr", "0xffff888003a1d000"}, {"bytes_req", "8"}, {"bytes_alloc", "8"},
	    {"gfp_flags", "0"}, {"node", "-1"}, {"nid", "0"});
	RUN("kfree", 100, NULL, {"call_site", "0xffffffff81300110"},
	    {"ptr", "0xffff888003a1c000"});
	RUN("kfree", 100, NULL, {"call_site", "0xffffffff81300110"}, {"ptr", "0x10"});
	RUN("kmem_cache_free", 200, "dentry", {"call_site", "0xffffffff81300110"},
	    {"ptr", "0xffff888004b2c0c0"});
	RUN("mm_page_alloc", 200, NULL, {"pfn", "0x10a2b"}, {"order", "2"},
	    {"gfp_flags", "0x140cca"}, {"migratetype", "1"}, {"nid", "1"});
	RUN("mm_page_alloc", 200, NULL, {"pfn", "0xffffffffffffffff"}, {"order", "0"},
	    {"gfp_flags", "0x2800"}, {"migratetype", "0"}, {"nid", "-1"});
	RUN("mm_page_free", 200, NULL, {"pfn", "0x10a2b"}, {"order", "2"});
	RUN("mm_page_free_batched", 200, NULL, {"pfn", "0x10a2b"});
	RUN("mm_page_free", 200, NULL, {"pfn", "0x99"}, {"order", "0"});
	print_end();
	return 0;
}
