// SPDX-License-Identifier: GPL-2.0
/*
 * The formats written from a run's profile once every sample is in: the
 * files (--flamegraph, --pprof, --speedscope, with what the run was and
 * what it lost for their titles) and the tables printed after the stacks
 * (--top, --tree). One table says, for each, its option, where it goes
 * and its writer; everything else asks the table.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ustack-cmd.h"
#include "ustack-session.h"
#include "ustack-tracedat-outfile.h"

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

/* --sort's keys as the table and the tree take them */
static void sort_keys(const struct ustack_opts *o, enum ustack_sort_key *keys,
		      unsigned int *nr)
{
	int i;

	for (i = 0; i < o->nr_sort; i++)
		keys[i] = o->sort[i];
	*nr = o->nr_sort;
}

static int write_flamegraph(const struct ustack_run *run, const char *path, FILE *fp)
{
	struct ustack_flamegraph_opts fo = { .reverse = run->o->reverse };

	return ustack_flamegraph_write(run->profile, &fo, fp);
}

/* gzip'ed by the writer itself, to @path */
static int write_pprof(const struct ustack_run *run, const char *path, FILE *fp)
{
	return ustack_pprof_write(run->profile, path);
}

static int write_speedscope(const struct ustack_run *run, const char *path, FILE *fp)
{
	return ustack_speedscope_write(run->profile, fp);
}

static int write_top(const struct ustack_run *run, const char *path, FILE *fp)
{
	const struct ustack_opts *o = run->o;
	struct ustack_top_opts to = {
		.max_rows = o->top_n,
		.percent_limit = o->percent_limit > 0 ? o->percent_limit : 0,
	};

	sort_keys(o, to.keys, &to.nr_keys);
	return ustack_top_write(run->profile, &to, fp);
}

static int write_tree(const struct ustack_run *run, const char *path, FILE *fp)
{
	const struct ustack_opts *o = run->o;
	struct ustack_tree_opts tro = {
		.callee = o->tree == TREE_CALLEE, .percent_limit = o->percent_limit,
	};

	sort_keys(o, tro.keys, &tro.nr_keys);
	return ustack_tree_write(run->profile, &tro, fp);
}

/*
 * @option:	its option (--NAME)
 * @file:	writes a file of its own (else the standard output, after
 *		the stacks, tables apart by a blank line)
 * @opens:	the writer opens @path itself (else it is given the stream)
 * @in_order:	shows the samples in the order they came (the profile keeps it)
 * @said:	the line that says where the file went ("%s": its path)
 */
static const struct profile_format {
	const char	*option;
	bool		file;
	bool		opens;
	bool		in_order;
	const char	*said;
	int		(*write)(const struct ustack_run *run, const char *path, FILE *fp);
} formats[USTACK_PROFILE_NR] = {
	[USTACK_PROFILE_FLAMEGRAPH] = {
		"--flamegraph", true, false, false,
		"flame graph in %1$s (open it in a browser)", write_flamegraph },
	[USTACK_PROFILE_PPROF] = {
		"--pprof", true, true, false,
		"pprof profile in %1$s (go tool pprof -top %1$s)", write_pprof },
	[USTACK_PROFILE_SPEEDSCOPE] = {
		"--speedscope", true, false, true,
		"speedscope profile in %1$s", write_speedscope },
	[USTACK_PROFILE_TOP] = { "--top", false, false, false, NULL, write_top },
	[USTACK_PROFILE_TREE] = { "--tree", false, false, false, NULL, write_tree },
};

/**
 * ustack_profiles_format - the format an option names its file for
 * @key: an argp key
 *
 * Returns the format, or -1 when @key is no format's file option.
 */
int ustack_profiles_format(int key)
{
	int f = key - USTACK_PROFILE_KEY(0);

	return f >= 0 && f < USTACK_PROFILE_NR && formats[f].file ? f : -1;
}

/**
 * ustack_profiles_file - whether a format writes a file of its own (else
 *	the standard output, after the stacks)
 * @f: the format
 */
bool ustack_profiles_file(enum ustack_profile_format f)
{
	return formats[f].file;
}

/**
 * ustack_profiles_option - the option of a format, for messages
 * @f: the format
 */
const char *ustack_profiles_option(enum ustack_profile_format f)
{
	return formats[f].option;
}

/**
 * ustack_profiles_in_order - whether a format asked for shows the samples
 *	in the order they came, which the profile then keeps
 * @o: the command line
 */
bool ustack_profiles_in_order(const struct ustack_opts *o)
{
	int f;

	for (f = 0; f < USTACK_PROFILE_NR; f++)
		if (o->profile[f] && formats[f].in_order)
			return true;
	return false;
}

/**
 * ustack_profiles_print - print the tables (--top, --tree) at the end of
 *	the output
 * @run: the run, its session flushed, its other output printed
 *
 * A write error (the output gone) marks the run's output failed.
 */
void ustack_profiles_print(struct ustack_run *run)
{
	const struct ustack_opts *o = run->o;
	bool first = true;
	int f;

	for (f = 0; f < USTACK_PROFILE_NR && !run->output_failed; f++) {
		if (!o->profile[f] || formats[f].file)
			continue;
		if (!first)
			fputc('\n', run->out);
		first = false;
		if (!formats[f].write(run, NULL, run->out))
			continue;
		if (errno != EIO && errno != EPIPE)
			die("cannot print %s: %s", formats[f].option, strerror(errno));
		run->output_failed = true;
		run->output_errno = errno;
	}
	/* the tables are the end of the output: a failed write is said now */
	if (!first && !run->output_failed && fflush(run->out) == EOF) {
		run->output_failed = true;
		run->output_errno = errno ? errno : EIO;
	}
}

/*
 * Each file's output, opened (its temporary made beside it) before the
 * traced command starts: a path that cannot be written is said then,
 * not once the run is over. It replaces the file when complete, as
 * record's trace.dat does (ustack-tracedat-outfile.h).
 */
static struct ustack_tracedat_outfile files[USTACK_PROFILE_NR];

/* exit() on any path: the temporaries of files never written go */
static void close_files(void)
{
	int f;

	for (f = 0; f < USTACK_PROFILE_NR; f++)
		ustack_tracedat_outfile_close(&files[f]);
}

/**
 * ustack_profiles_open - make sure every profile file can be written
 * @o: the command line
 *
 * Before the traced command starts (and before report reads its file):
 * dies naming the first path that cannot be written.
 */
void ustack_profiles_open(const struct ustack_opts *o)
{
	static bool registered;
	char msg[PATH_MAX + 128];
	int f;

	if (!registered && atexit(close_files))
		die("out of memory");
	registered = true;
	for (f = 0; f < USTACK_PROFILE_NR; f++) {
		if (!o->profile[f] || !formats[f].file || files[f].name)
			continue;
		if (ustack_tracedat_outfile_open(&files[f], o->profile[f]) < 0 ||
		    ustack_tracedat_outfile_reserve(&files[f]) < 0)
			die("%s", ustack_tracedat_outfile_strerror(&files[f], msg, sizeof(msg)));
	}
}

struct file_job {
	const struct ustack_run		*run;
	const struct profile_format	*pf;
};

/* Into the temporary at @file: opened by the writer, or here */
static int write_temp(const char *file, void *data)
{
	const struct file_job *job = data;
	FILE *fp = NULL;
	int err;

	if (!job->pf->opens) {
		fp = fopen(file, "we");
		if (!fp)
			return -1;
	}
	if (job->pf->write(job->run, file, fp)) {
		err = errno;
		if (fp)
			fclose(fp);
		errno = err;
		return -1;
	}
	return fp && fclose(fp) ? -1 : 0;
}

/* One file: written whole, then put in place; die() on any failure */
static void write_file(const struct ustack_run *run, int f)
{
	struct file_job job = { .run = run, .pf = &formats[f] };
	char msg[PATH_MAX + 128];

	if (!files[f].name)
		ustack_profiles_open(run->o);
	if (ustack_tracedat_outfile_write(&files[f], write_temp, &job) < 0)
		die("%s", ustack_tracedat_outfile_strerror(&files[f], msg, sizeof(msg)));
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
	char what[1024], *program;
	int f;

	describe(o, what, sizeof(what));
	ustack_profile_set_command(run->profile, what);
	/* the command's file: pprof's main binary */
	program = o->cmd ? ustack_child_program(o->cmd) : NULL;
	ustack_profile_set_program(run->profile, program);
	free(program);
	ustack_profile_set_stats(run->profile, ustack_session_stats(run->session));
	for (f = 0; f < USTACK_PROFILE_NR; f++)
		if (o->profile[f] && formats[f].file)
			write_file(run, f);
	if (o->quiet)
		return;
	/* where the pictures went, before the summary */
	for (f = 0; f < USTACK_PROFILE_NR; f++) {
		if (!o->profile[f] || !formats[f].file)
			continue;
		fputs("trace-cmd ustack: ", stderr);
		fprintf(stderr, formats[f].said, o->profile[f]);
		fputc('\n', stderr);
	}
}
