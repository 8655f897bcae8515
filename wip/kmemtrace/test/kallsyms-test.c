#define main kmemtrace_main
#include "../kmemtrace.c"
#undef main
int main(void)
{
	struct tep_handle *tep = tep_alloc();
	char buf[256];

	load_kallsyms(tep);
	printf("functions: %d\n", tep_get_function_count(tep));
	format_caller(tep, tep_find_function_address(tep, 0) , buf, sizeof(buf));
	FILE *f = popen("grep -m1 ' T kfree$' /proc/kallsyms", "r");
	unsigned long long a = 0;
	if (fscanf(f, "%llx", &a) == 1) {
		format_caller(tep, a + 0x10, buf, sizeof(buf));
		printf("kfree+0x10 -> %s\n", buf);
	}
	pclose(f);
	tep_free(tep);
	return 0;
}
