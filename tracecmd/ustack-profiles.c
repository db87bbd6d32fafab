// SPDX-License-Identifier: GPL-2.0
/*
 * The profile files of a run (--flamegraph, --pprof, --speedscope),
 * written once every sample is in, with what the run was and what it
 * lost for their titles.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-cmd.h"
#include "ustack-session.h"

/*
 * @arg appended to @buf at @len as a shell reads it back: quoted when it
 * holds anything but letters, digits and "%+,-./:=@_"
 */
static size_t put_arg(char *buf, size_t size, size_t len, const char *arg)
{
	const char *c;

	if (len >= size)
		return len;
	for (c = arg; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("%+,-./:=@_", *c))
			break;
	if (*arg && !*c)
		return len + snprintf(buf + len, size - len, " %s", arg);
	len += snprintf(buf + len, size - len, " '");
	for (c = arg; *c && len < size; c++) {
		if (*c == '\'')
			len += snprintf(buf + len, size - len, "'\\''");
		else
			len += snprintf(buf + len, size - len, "%c", *c);
	}
	if (len < size)
		len += snprintf(buf + len, size - len, "'");
	return len;
}

/* What the profile is of, as the command line said it */
static void describe(const struct ustack_opts *o, char *buf, size_t size)
{
	size_t len;
	int i;

	if (o->mode == MODE_REPORT) {
		len = snprintf(buf, size, "trace-cmd ustack report -i");
		put_arg(buf, size, len, o->input);
		return;
	}
	len = snprintf(buf, size, "trace-cmd ustack");
	for (i = 0; i < o->nr_pids && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d", i ? "," : " -P ", o->pids[i]);
	if (o->cmd && len < size)
		len += snprintf(buf + len, size - len, " --");
	for (i = 0; o->cmd && o->cmd[i] && len < size; i++)
		len = put_arg(buf, size, len, o->cmd[i]);
	if (!o->cmd && !o->nr_pids && len < size)
		snprintf(buf + len, size - len, " (all tasks)");
}

static void write_text(const struct ustack_profile *p, const char *path,
		       int (*fn)(const struct ustack_profile *, const void *, FILE *),
		       const void *opts)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		die("cannot create %s: %s", path, strerror(errno));
	if (fn(p, opts, fp)) {
		fclose(fp);
		die("cannot write %s: %s", path, strerror(errno));
	}
	if (fclose(fp))
		die("cannot write %s: %s", path, strerror(errno));
}

static int flamegraph(const struct ustack_profile *p, const void *opts, FILE *fp)
{
	return ustack_flamegraph_write(p, opts, fp);
}

static int speedscope(const struct ustack_profile *p, const void *opts, FILE *fp)
{
	return ustack_speedscope_write(p, fp);
}

/* --sort's keys as the table and the tree take them */
static void sort_keys(const struct ustack_opts *o, enum ustack_sort_key *keys,
		      unsigned int *nr)
{
	int i;

	for (i = 0; i < o->nr_sort; i++)
		keys[i] = o->sort[i];
	*nr = o->nr_sort;
}

/**
 * ustack_profiles_print - print --top and --tree at the end of the output
 * @run: the run, its session flushed, its other output printed
 *
 * A write error (stdout gone) marks the run's output failed.
 */
void ustack_profiles_print(struct ustack_run *run)
{
	const struct ustack_opts *o = run->o;
	struct ustack_top_opts to = {
		.max_rows = o->top_n,
		.percent_limit = o->percent_limit > 0 ? o->percent_limit : 0,
	};
	struct ustack_tree_opts tro = {
		.callee = o->tree == TREE_CALLEE, .percent_limit = o->percent_limit,
	};

	if (run->output_failed)
		return;
	sort_keys(o, to.keys, &to.nr_keys);
	sort_keys(o, tro.keys, &tro.nr_keys);
	if (o->top && ustack_top_write(run->profile, &to, stdout))
		goto failed;
	if (o->top && o->tree)
		putchar('\n');
	if (o->tree && ustack_tree_write(run->profile, &tro, stdout))
		goto failed;
	return;
failed:
	if (errno != EIO && errno != EPIPE)
		die("cannot print %s: %s", o->top ? "--top" : "--tree", strerror(errno));
	run->output_failed = true;
	run->output_errno = errno;
}

/**
 * ustack_profiles_write - write the files the command line asked for
 * @run: the run, its session flushed
 *
 * Exits through die() when a file cannot be written.
 */
void ustack_profiles_write(struct ustack_run *run)
{
	const struct ustack_opts *o = run->o;
	struct ustack_flamegraph_opts fo = { .reverse = o->reverse };
	char what[1024];

	describe(o, what, sizeof(what));
	ustack_profile_set_command(run->profile, what);
	ustack_profile_set_stats(run->profile, ustack_session_stats(run->session));
	if (o->flamegraph)
		write_text(run->profile, o->flamegraph, flamegraph, &fo);
	if (o->speedscope)
		write_text(run->profile, o->speedscope, speedscope, NULL);
	if (o->pprof && ustack_pprof_write(run->profile, o->pprof))
		die("cannot write %s: %s", o->pprof, strerror(errno));
	if (o->quiet)
		return;
	/* where the pictures went, before the summary */
	if (o->flamegraph)
		fprintf(stderr, "trace-cmd ustack: flame graph in %s (open it in a browser)\n",
			o->flamegraph);
	if (o->pprof)
		fprintf(stderr, "trace-cmd ustack: pprof profile in %s (go tool pprof -top %s)\n",
			o->pprof, o->pprof);
	if (o->speedscope)
		fprintf(stderr, "trace-cmd ustack: speedscope profile in %s\n", o->speedscope);
}
