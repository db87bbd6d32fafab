// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-interpose-test: our tep_parse_saved_cmdlines()
 * (lib/ustack-tracedat-interpose.c) against libtraceevent's own, on the
 * same text.
 *
 *   ustack-interpose-test FILE
 *
 * FILE holds a saved_cmdlines text (or anything). Both parse it into a
 * tep handle of their own; then every number that appears in the text is
 * asked as a pid of both. Prints "same R N" (the return value and how
 * many pids both registered) when they agree, else the first difference
 * and exits 1. Linked with lib/libustack.a, the test's own call reaches
 * our definition; the library's is found behind it (dlsym(RTLD_NEXT)).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

typedef int (*parse_fn)(struct tep_handle *tep, const char *buf);

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t len = 0, n;
	char *buf = NULL, *p;

	if (!fp)
		return NULL;
	do {
		p = realloc(buf, len + 65536 + 1);
		if (!p) {
			free(buf);
			fclose(fp);
			return NULL;
		}
		buf = p;
		n = fread(buf + len, 1, 65536, fp);
		len += n;
	} while (n);
	buf[len] = '\0';
	fclose(fp);
	return buf;
}

/* Compare what both handles say of @pid; 1 when both registered it */
static int compare(struct tep_handle *ours, struct tep_handle *lib, int pid)
{
	bool a = tep_is_pid_registered(ours, pid), b = tep_is_pid_registered(lib, pid);
	const char *ca, *cb;

	if (a != b) {
		printf("pid %d: registered by %s only\n", pid, a ? "ours" : "the library");
		exit(1);
	}
	if (!a)
		return 0;
	ca = tep_data_comm_from_pid(ours, pid);
	cb = tep_data_comm_from_pid(lib, pid);
	if (strcmp(ca, cb)) {
		printf("pid %d: ours '%s', the library '%s'\n", pid, ca, cb);
		exit(1);
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct tep_handle *ours = tep_alloc(), *lib = tep_alloc();
	parse_fn real = (parse_fn)dlsym(RTLD_NEXT, "tep_parse_saved_cmdlines");
	int ret_ours, ret_lib, nr = 0;
	char *text, *p, *end;
	long v;

	if (argc != 2 || !ours || !lib || !real || real == tep_parse_saved_cmdlines) {
		fprintf(stderr, "usage: ustack-interpose-test FILE (and both parsers)\n");
		return 2;
	}
	text = slurp(argv[1]);
	if (!text) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	ret_ours = tep_parse_saved_cmdlines(ours, text);
	ret_lib = real(lib, text);
	if (ret_ours != ret_lib) {
		printf("returned: ours %d, the library %d\n", ret_ours, ret_lib);
		return 1;
	}
	for (p = text; *p; p = end) {
		v = strtol(p, &end, 10);
		if (end == p) {
			end = p + 1;
			continue;
		}
		if (v >= -1 && v <= 0x7fffffff)
			nr += compare(ours, lib, (int)v);
	}
	printf("same %d %d\n", ret_ours, nr);
	tep_free(ours);
	tep_free(lib);
	free(text);
	return 0;
}
