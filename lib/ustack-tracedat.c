// SPDX-License-Identifier: LGPL-2.1
/*
 * Writing and reading trace.dat for trace-cmd ustack.
 *
 * The writer is libtracecmd's own (private but exported, see
 * tracecmd-private-decls.h), called in the order `trace-cmd record` uses:
 * headers (copied from the live tracefs: header page, ftrace formats, the
 * formats of our systems, kallsyms, printk), options, buffer description,
 * cmdlines, then the CPU data of the top buffer and of ours. The top
 * buffer was not traced: its CPU 0 carries the side-band when there is
 * one (ustack-tracedat-sbfile.h), every other CPU is empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <event-parse.h>
#include <trace-cmd.h>
#include <tracefs.h>

#include "tracecmd-private-decls.h"
#include "ustack-tracedat-interpose.h"
#include "ustack-tracedat-overlay.h"
#include "ustack-sample-event.h"
#include "ustack-err.h"
#include "ustack-open.h"
#include "ustack-tracedat-check.h"
#include "ustack-tracedat-cpu.h"
#include "ustack-tracedat.h"
#include "ustack-warn.h"

struct ustack_tracedat {
	struct tracecmd_input	*top;
	struct tracecmd_input	*buf;		/* == top when no instance is used */
	char			*name;
	char			*file;
	int			fd;
	struct ustack_tracedat_layout	layout;		/* of @fd, what the structure check saw */
	/*
	 * The CPU data of buf and of top, read in bounded memory where the
	 * file allows (ustack-tracedat-cpu.c); NULL: read by libtracecmd.
	 */
	struct ustack_tracedat_cpu	*own[2];
	unsigned long		corrupt;	/* records dropped by fits_page() */
	bool			stop;		/* ustack_tracedat_stop() was called */
	int			err;		/* why it could not be opened */
	char			*why;		/* USTACK_ERR_CORRUPT: what is */
};

/* libtracecmd expands "system/event" with glob(3) under events/ */
static struct tracecmd_event_list *event_list(const char **systems)
{
	struct tracecmd_event_list *list = NULL, *e;
	char *glob;
	int i;

	for (i = 0; systems && systems[i]; i++) {
		e = calloc(1, sizeof(*e));
		glob = e ? strdup(systems[i]) : NULL;
		if (!glob) {
			free(e);
			break;
		}
		e->glob = glob;
		e->next = list;
		list = e;
	}
	return list;
}

/* The side-band's binary samples need ustack:sample's format too */
static struct tracecmd_event_list *add_sample_format(struct tracecmd_event_list *list)
{
	struct tracecmd_event_list *e = calloc(1, sizeof(*e));

	if (!e)
		return list;
	/* ustack:sample and ustack:sample_copy */
	e->glob = strdup(USTACK_SAMPLE_SYSTEM "/*");
	if (!e->glob) {
		free(e);
		return list;
	}
	e->next = list;
	return e;
}

static void free_event_list(struct tracecmd_event_list *list)
{
	struct tracecmd_event_list *e;

	while ((e = list)) {
		list = e->next;
		free((char *)e->glob);
		free(e);
	}
}

static void add_string_option(struct tracecmd_output *out, unsigned short id, const char *s)
{
	tracecmd_add_option(out, id, strlen(s) + 1, s);
}

static void add_options(struct tracecmd_output *out, const struct ustack_tracedat_out *o)
{
	struct utsname u;
	char buf[4 * sizeof(u.release) + 8];
	int i;

	if (o->clock)
		add_string_option(out, USTACK_TRACECMD_OPTION_TRACECLOCK, o->clock);
	if (!uname(&u)) {
		snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release, u.version,
			 u.machine);
		add_string_option(out, USTACK_TRACECMD_OPTION_UNAME, buf);
	}
	add_string_option(out, USTACK_TRACECMD_OPTION_VERSION, "trace-cmd-ustack");
	for (i = 0; o->procmaps && o->procmaps[i]; i++)
		add_string_option(out, USTACK_TRACECMD_OPTION_PROCMAPS, o->procmaps[i]);
}

/*
 * The file's page size must be the size of the sub-buffers in it, the
 * instance's, which may be larger than the top level's (stack copies,
 * ustack-stack-source.c). libtracecmd 3.1.6 has no call to set it: it reads
 * it, when the output is created, from events/header_page of the tracing
 * directory libtracefs names (get_trace_page_size()), and each buffer's
 * own (version 7 files keep one per buffer) from its instance's header
 * page. Giving the named buffer alone the larger size is not enough: the
 * reader, ours and stock trace-cmd's alike, places each CPU's decompressed
 * data at offsets aligned to the file's page size (init_cpu_zpage()) and
 * then refuses ("bad page offset") the buffer's larger pages there. So the
 * whole file gets the instance's size, the side-band written in it too:
 * the tracing directory is pointed at the instance while the output is
 * created, then back (nothing else uses libtracefs while the file is
 * written), and the output forgets the directory it kept. The header page
 * copied into the file stays the top level's: readers go by the page
 * sizes. ustack_tracedat_write() then checks what libtracecmd wrote.
 */
static struct tracecmd_output *create_output(const struct ustack_tracedat_out *o,
					     const char *overlay)
{
	char *top = strdup(tracefs_tracing_dir() ? tracefs_tracing_dir() : "");
	struct tracecmd_output *out;
	char *dir = NULL;

	if (!o->page_size || !o->instance || !top || !*top ||
	    asprintf(&dir, "%s/instances/%s", top, o->instance) < 0) {
		free(top);
		out = tracecmd_output_create(o->file);
		if (out && overlay)
			tracecmd_output_set_trace_dir(out, overlay);
		return out;
	}
	tracefs_set_tracing_dir(dir);
	out = tracecmd_output_create(o->file);
	tracefs_set_tracing_dir(top);
	/* the formats: the real directory's, and ours through the overlay */
	if (out)
		tracecmd_output_set_trace_dir(out, overlay);
	free(dir);
	free(top);
	return out;
}

/*
 * Whether libtracecmd wrote the page size of the sub-buffers: a file that
 * says another would be read wrong by every reader. 0, or -1 with @why.
 */
static int check_page_size(const struct ustack_tracedat_out *o, char *why, size_t size)
{
	struct ustack_tracedat_layout layout = { 0 };
	unsigned int page = 0;
	size_t i;
	int fd, ret;

	if (!o->page_size)
		return 0;
	fd = ustack_resolve_open_regular(o->file);
	if (fd < 0) {
		snprintf(why, size, "cannot read it back: %s", ustack_err_strerror(fd));
		return -1;
	}
	ret = ustack_tracedat_check_layout(fd, &layout, why, size);
	close(fd);
	/* the file's and every buffer's (version 7) */
	if (!ret) {
		page = layout.page;
		for (i = 0; i < layout.nr_buffers && page == (unsigned int)o->page_size; i++)
			page = layout.buffers[i].page;
	}
	ustack_tracedat_check_layout_free(&layout);
	if (ret || page == (unsigned int)o->page_size)
		return ret;
	snprintf(why, size, "libtracecmd wrote the %d-byte sub-buffers of instance %s as "
		 "pages of %u bytes (it takes the size from the header page of the tracing "
		 "directory): refused, every reader would misread them",
		 o->page_size, o->instance, page);
	return -1;
}

/*
 * libtracecmd's warnings while it writes: one of them is the only sign
 * of a file it wrote wrong and still called written (below)
 */
static unsigned int size_errors;

/**
 * ustack_tracedat_lib_warning - a warning of libtracecmd, for the writer
 * @msg: its text
 *
 * The program's tracecmd_warning() passes every message on: "error in
 * size of file" says that a tracefs file changed while libtracecmd copied
 * it, and libtracecmd 1.3 then goes on, writing a section whose size is
 * not its length: a file no reader opens, also stock trace-cmd report.
 * The file is written again (ustack_tracedat_write()), which says so if
 * it cannot.
 *
 * Returns true when the message is taken care of here (not to be shown).
 */
bool ustack_tracedat_lib_warning(const char *msg)
{
	if (!strstr(msg, "error in size of file"))
		return false;
	size_errors++;
	return true;
}

/*
 * A copy of /proc/kallsyms is some 1 MB compressed, most of a short
 * recording, and only kernel stacks and kernel addresses in events need
 * it. libtracecmd copies the file it is given instead: an empty one
 * gives an empty section. (Its path for a file that does not exist
 * leaves the section's compression open in libtracecmd 1.3 and writes
 * a file no one reads.)
 */
#define NO_KALLSYMS "/dev/null"

static int set_kallsyms(struct tracecmd_output *out, const struct ustack_tracedat_out *o)
{
	if (o->kallsyms)
		return 0;
	return tracecmd_output_set_kallsyms(out, NO_KALLSYMS);
}

/* One attempt at the whole file; @overlay: the formats' directory, or NULL */
static int write_once(const struct ustack_tracedat_out *o, const char *overlay)
{
	struct tracecmd_event_list *list;
	struct tracecmd_output *out;
	char **empty;
	int ret = -1, err;
	int i;

	empty = calloc(o->nr_cpus + 1, sizeof(*empty));
	if (!empty)
		return -1;
	for (i = 0; i < o->nr_cpus; i++)
		empty[i] = "/dev/null";
	if (o->sideband && o->nr_cpus)
		empty[0] = (char *)o->sideband;
	list = event_list(o->systems);
	if (o->sideband)
		list = add_sample_format(list);
	out = create_output(o, overlay);
	if (!out)
		goto out_free;
	tracecmd_set_quiet(out, true);
	/* kallsyms dominates the size; compress when libtracecmd can. */
	tracecmd_output_set_compression(out, "any");
	if (set_kallsyms(out, o) < 0 || tracecmd_output_write_headers(out, list) < 0)
		goto out_close;
	add_options(out, o);
	if (tracecmd_add_buffer_info(out, o->instance, o->nr_cpus) < 0 ||
	    tracecmd_write_cmdlines(out) < 0 ||
	    tracecmd_append_cpu_data(out, o->nr_cpus, empty) < 0 ||
	    tracecmd_append_buffer_cpu_data(out, o->instance, o->nr_cpus, o->cpu_files) < 0)
		goto out_close;
	ret = 0;
 out_close:
	err = errno;
	tracecmd_output_close(out);
	errno = err;
 out_free:
	free_event_list(list);
	free(empty);
	return ret;
}

/*
 * libtracecmd writes the size of a tracefs file, then copies it, and gives
 * up when the two differ: saved_cmdlines changes whenever tasks start, so
 * a busy machine (other tracers, other test runs) makes that happen now
 * and then. The file is then written again from its start, a few times
 * before that counts as an error; a full file system does not get better.
 * libtracecmd may also say so (ustack_tracedat_lib_warning()) and still
 * call the file written: that counts as failed too. A file written again
 * is opened once, to see that it reads.
 */
#define WRITE_TRIES	3

/* Whether libtracecmd opens the file it wrote */
static bool readable(const char *file)
{
	struct tracecmd_input *in = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS |
						  TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);

	if (!in)
		return false;
	tracecmd_close(in);
	return true;
}

/**
 * ustack_tracedat_write - build a trace.dat from recorded per-CPU data
 * @o: what to write, and where (@o->file is created or truncated)
 *
 * Must run on the traced machine while tracefs is still mounted: event
 * formats and kallsyms are copied from it. Where the file goes and how it
 * replaces the output is ustack-tracedat-outfile.h's business. Returns 0, or -1
 * with errno.
 */
int ustack_tracedat_write(const struct ustack_tracedat_out *o)
{
	unsigned int errors;
	char why[512], *overlay = NULL;
	int i, ret = -1, err;

	/*
	 * the side-band may hold ustack:sample records, whose format needs
	 * the overlay; without them it only keeps files that change while
	 * libtracecmd reads them still (written as before when it cannot)
	 */
	overlay = ustack_tracedat_overlay_make(o->sideband != NULL);
	if (!overlay && o->sideband)
		return -1;
	for (i = 0; i < WRITE_TRIES && ret; i++) {
		errno = 0;
		if (i && truncate(o->file, 0) < 0)
			break;
		errors = size_errors;
		ret = write_once(o, overlay);
		if (errno == ENOSPC || errno == EDQUOT || errno == EROFS || errno == EFBIG)
			break;
		if (!ret && (size_errors != errors || (i && !readable(o->file)))) {
			errno = EIO;
			ret = -1;
		}
	}
	err = errno;
	ustack_tracedat_overlay_remove(overlay);
	errno = err;
	if (ret || !check_page_size(o, why, sizeof(why)))
		return ret;
	ustack_warning("%s", why);
	errno = EINVAL;
	return -1;
}

/* A refusal of the structure check: its reason to td->why, its code */
static int refused(struct ustack_tracedat *td, int ret, const char *why)
{
	td->why = strdup(why);
	return ret == -1 ? USTACK_ERR_CORRUPT : ret;
}

/*
 * trace.dat files start with "\027\010\104tracing". Returns 0 or a code
 * (a refused file's reason goes to td->why). The file stays open in
 * td->fd, its layout in td->layout, for the reader.
 */
static int check_tracedat(struct ustack_tracedat *td)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char buf[sizeof(magic)], why[256];
	ssize_t r;
	int fd, ret;

	fd = ustack_resolve_open_regular(td->file);
	if (fd < 0)
		return fd;
	td->fd = fd;
	r = read(fd, buf, sizeof(buf));
	if (r < 0)
		return -errno;
	if (r != sizeof(buf) || memcmp(buf, magic, sizeof(magic)))
		return USTACK_ERR_NOT_TRACEDAT;
	/* what libtracecmd would follow blindly: see ustack-tracedat-check.c */
	ret = ustack_tracedat_check_layout(fd, &td->layout, why, sizeof(why));
	if (ret)
		return refused(td, ret, why);
	/* compressed sub-buffers that libtracecmd would load unchecked */
	if (!ustack_tracedat_cpu_wanted(&td->layout)) {
		ret = ustack_tracedat_check_chunks(fd, &td->layout, why, sizeof(why));
		if (ret)
			return refused(td, ret, why);
	}
	return 0;
}

static int pick_buffer(struct tracecmd_input *top, const char *want)
{
	int n = tracecmd_buffer_instances(top);
	const char *name;
	int i;

	for (i = 0; i < n; i++) {
		name = tracecmd_buffer_instance_name(top, i);
		if (!name)
			continue;
		if (want ? !strcmp(name, want) : !strncmp(name, "ustack", 6))
			return i;
	}
	if (want)
		return -2;
	return n > 0 ? 0 : -1;
}

/* What libtracecmd failed of, when the system says: else @code */
static int lib_failure(int err, int code)
{
	if (err == ENOMEM || err == EMFILE || err == ENFILE || err == EIO)
		return -err;
	return code;
}

/* The file opened by libtracecmd into td->top; 0 or a code */
static int open_input(struct ustack_tracedat *td, bool kernel_symbols)
{
	int fd = open(td->file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ustack_tracedat_interpose_skip_kallsyms(!kernel_symbols, fd, td->layout.kallsyms_block);
	/* the handle owns @fd, closed with it (or by its failure) */
	errno = 0;
	td->top = tracecmd_open_fd(fd, 0);
	ustack_tracedat_interpose_skip_kallsyms(false, -1, 0);
	return td->top ? 0 : lib_failure(errno, USTACK_ERR_UNREADABLE);
}

/* The buffer @instance names, else the one picked; 0 or a code */
static int open_buffer(struct ustack_tracedat *td, const char *instance)
{
	int idx = pick_buffer(td->top, instance), fd;

	if (idx == -2) {
		td->name = strdup(instance);
		return USTACK_ERR_NO_BUFFER;
	}
	td->buf = td->top;
	if (idx < 0)
		return 0;
	/* libtracecmd dup()s the file's descriptor for it, unchecked: is there room? */
	fd = fcntl(td->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	errno = 0;
	td->buf = tracecmd_buffer_instance_handle(td->top, idx);
	td->name = strdup(tracecmd_buffer_instance_name(td->top, idx));
	return td->buf ? 0 : lib_failure(errno, USTACK_ERR_BAD_BUFFER);
}

/* As many CPUs as the iteration reads of @in */
static int nr_cpus(struct tracecmd_input *in)
{
	int n = tep_get_cpus(tracecmd_get_tep(in));

	return n < 0 ? 0 : n;
}

/* Our readers of the CPU data, where the file allows them; false if one is missing */
static bool open_own(struct ustack_tracedat *td)
{
	td->own[0] = ustack_tracedat_cpu_open(td->fd, td->file, &td->layout, td->name ? td->name : "",
					tracecmd_get_tep(td->buf), nr_cpus(td->buf));
	if (td->top != td->buf)
		td->own[1] = ustack_tracedat_cpu_open(td->fd, td->file, &td->layout, "",
						tracecmd_get_tep(td->top), nr_cpus(td->top));
	return td->own[0] && (td->top == td->buf || td->own[1]);
}

static void close_inputs(struct ustack_tracedat *td)
{
	ustack_tracedat_cpu_close(td->own[0]);
	ustack_tracedat_cpu_close(td->own[1]);
	td->own[0] = td->own[1] = NULL;
	if (td->buf && td->buf != td->top)
		tracecmd_close(td->buf);
	if (td->top)
		tracecmd_close(td->top);
	td->buf = td->top = NULL;
	free(td->name);
	td->name = NULL;
}

/*
 * libtracecmd's handles and ours, lazily when @lazy (see
 * ustack-tracedat-interpose.c); 0 or a code
 */
static int open_inputs(struct ustack_tracedat *td, const char *instance, bool kernel_symbols,
		       bool lazy)
{
	int err;

	ustack_tracedat_interpose_lazy_chunks(lazy);
	err = open_input(td, kernel_symbols);
	if (!err)
		err = open_buffer(td, instance);
	ustack_tracedat_interpose_lazy_chunks(false);
	if (err)
		return err;
	if (open_own(td) || !lazy)
		return 0;
	/* some chunk of libtracecmd's is an empty stand-in: it reads them all */
	close_inputs(td);
	return open_inputs(td, instance, kernel_symbols, false);
}

/**
 * ustack_tracedat_open - open a trace.dat and select the buffer to read
 * @file: the file
 * @instance: buffer name, or NULL to pick (see ustack-tracedat.h)
 * @kernel_symbols: load the kernel symbols the file carries (else kernel
 *	addresses stay unnamed: for outputs that print none)
 * @tdp: set to the file; on failure to one that only says why
 *	(ustack_tracedat_strerror()) and is then closed, or NULL when out
 *	of memory
 *
 * Returns 0 or a negative code (-errno, enum ustack_err).
 */
int ustack_tracedat_open(const char *file, const char *instance, bool kernel_symbols,
			 struct ustack_tracedat **tdp)
{
	struct ustack_tracedat *td = calloc(1, sizeof(*td));

	*tdp = td;
	if (!td)
		return USTACK_ERR_NOMEM;
	td->fd = -1;
	td->file = strdup(file);
	if (!td->file)
		return td->err = USTACK_ERR_NOMEM;
	td->err = check_tracedat(td);
	if (td->err)
		return td->err;
	td->err = open_inputs(td, instance, kernel_symbols,
			      td->layout.compressed && ustack_tracedat_cpu_wanted(&td->layout));
	return td->err;
}

/**
 * ustack_tracedat_strerror - the one-line reason a trace.dat did not open
 * @td:		what ustack_tracedat_open() set (NULL: out of memory)
 * @buf:	where to write it
 * @size:	room in @buf
 *
 * Returns @buf.
 */
const char *ustack_tracedat_strerror(const struct ustack_tracedat *td, char *buf, size_t size)
{
	const char *file = td && td->file ? td->file : "trace.dat";
	int err = td ? td->err : USTACK_ERR_NOMEM;

	switch (err) {
	case USTACK_ERR_NOT_REGULAR:
		snprintf(buf, size, "%s is not a regular file", file);
		break;
	case USTACK_ERR_NOT_TRACEDAT:
		snprintf(buf, size, "%s is not a trace.dat file", file);
		break;
	case USTACK_ERR_CORRUPT:
		snprintf(buf, size, "%s: corrupt trace.dat: %s", file,
			 td->why ? td->why : ustack_err_strerror(USTACK_ERR_NOMEM));
		break;
	case USTACK_ERR_BUDGET:
		snprintf(buf, size, "%s: %s", file,
			 td->why ? td->why : ustack_err_strerror(USTACK_ERR_NOMEM));
		break;
	case USTACK_ERR_UNREADABLE:
		snprintf(buf, size, "%s: cannot read this trace.dat file", file);
		break;
	case USTACK_ERR_NO_BUFFER:
		snprintf(buf, size, "%s has no buffer named '%s'", file, td->name);
		break;
	case USTACK_ERR_BAD_BUFFER:
		snprintf(buf, size, "%s: cannot read buffer %s", file, td->name);
		break;
	case USTACK_ERR_NOMEM:
		snprintf(buf, size, "%s", ustack_err_strerror(err));
		break;
	default:
		/* a read of the structure check that failed: it says where */
		if (td->why)
			snprintf(buf, size, "cannot read %s: %s", file, td->why);
		else
			snprintf(buf, size, "cannot open %s: %s", file, ustack_err_strerror(err));
	}
	return buf;
}

struct tep_handle *ustack_tracedat_tep(struct ustack_tracedat *td)
{
	return tracecmd_get_tep(td->buf);
}

/*
 * A record lies inside the sub-buffer it was read from. The reader takes
 * an event's length from the file as it is: a corrupt length would make
 * every later user of rec->size (copies, field bounds) read past the
 * page. rec->offset is the file offset of the page plus that of the
 * event header in it, and pages start at multiples of their size.
 */
static bool fits_page(struct tracecmd_input *in, const struct tep_record *rec)
{
	struct tep_handle *tep = tracecmd_get_tep(in);
	/* the buffer's: the header page may be another instance's */
	int psize = tracecmd_page_size(in);
	int hsize = 8 + tep_get_header_page_size(tep);
	unsigned long long at;

	if (psize <= 0)
		psize = tep_get_sub_buffer_size(tep);
	if (psize <= hsize)
		return false;
	at = rec->offset % psize;
	return rec->size >= 0 && rec->record_size >= rec->size && at >= hsize &&
	       (unsigned long long)rec->record_size <= psize - at;
}

/* The CPU whose next record comes first (the lowest on ties), or -1 */
static int first_cpu(struct tep_record **next, int nr)
{
	int cpu, best = -1;

	for (cpu = 0; cpu < nr; cpu++)
		if (next[cpu] && (best < 0 || next[cpu]->ts < next[best]->ts))
			best = cpu;
	return best;
}

/*
 * The CPUs of the selected buffer, then (when it is not the top one) the
 * CPUs of the top buffer: @from_top tells them apart.
 */
struct reader {
	struct tracecmd_input	*in[2];
	struct ustack_tracedat_cpu	*own[2];
	int			nr[2];
	struct tep_record	**next;
	int			total;
};

/* A record of libtracecmd's is freed; ours belong to the reader */
static void put_record(struct reader *r, int slot, struct tep_record *rec)
{
	if (rec && !r->own[slot >= r->nr[0]])
		tracecmd_free_record(rec);
}

static struct tep_record *read_one(struct reader *r, int slot, bool first)
{
	int half = slot >= r->nr[0];
	int cpu = half ? slot - r->nr[0] : slot;

	if (r->own[half])
		return ustack_tracedat_cpu_next(r->own[half], cpu, first);
	return first ? tracecmd_read_cpu_first(r->in[half], cpu) :
		       tracecmd_read_data(r->in[half], cpu);
}

/* The next record of @slot that fits its page; others are counted */
static struct tep_record *read_next(struct ustack_tracedat *td, struct reader *r, int slot,
				    bool first)
{
	struct tracecmd_input *in = r->in[slot >= r->nr[0]];
	struct tep_record *rec;

	rec = read_one(r, slot, first);
	while (rec && !fits_page(in, rec)) {
		td->corrupt++;
		put_record(r, slot, rec);
		rec = read_one(r, slot, false);
	}
	return rec;
}

/**
 * ustack_tracedat_iterate - hand out every record of the selected buffer
 * @td: the open file
 * @fn: called per record, in timestamp order across CPUs
 * @top_fn: called, merged in the same order, with every record of the top
 *	buffer when another buffer is selected (the side-band); may be NULL
 * @ctx: passed to @fn and @top_fn
 *
 * Each call starts from the first record again (tracecmd_iterate_events()
 * cannot: it leaves the file at its end); a callback may end it early
 * with ustack_tracedat_stop(). Returns 0, or -1 when out of memory.
 */
int ustack_tracedat_iterate(struct ustack_tracedat *td, ustack_tracedat_fn fn,
			    ustack_tracedat_fn top_fn, void *ctx)
{
	return ustack_tracedat_iterate_lost(td, fn, top_fn, NULL, ctx);
}

/*
 * A record that follows a loss on its CPU: every record of that CPU
 * before the loss was handed out, so the loss is told now, before
 * records of other CPUs move time past the events whose cookies or
 * stacks were lost with it.
 */
static void tell_lost(struct reader *r, int slot, ustack_tracedat_lost_fn lost_fn, void *ctx)
{
	struct tep_record *rec = r->next[slot];
	bool drops = false;
	long long empty;

	if (!lost_fn || slot >= r->nr[0])
		return;
	/* pages with no record (ustack-dropped.c): before @rec, or at the CPU's end */
	empty = r->own[0] ? ustack_tracedat_cpu_take_lost(r->own[0], slot, &drops) : 0;
	if (empty)
		lost_fn(slot, empty, ctx);
	if (drops)
		lost_fn(slot, USTACK_DROPS_BEGIN, ctx);
	if (!rec || !rec->missed_events)
		return;
	lost_fn(slot, rec->missed_events, ctx);
	rec->missed_events = 0;
}

/**
 * ustack_tracedat_iterate_lost - ustack_tracedat_iterate(), losses told first
 * @td: the open file
 * @fn: called per record, in timestamp order across CPUs
 * @top_fn: as for ustack_tracedat_iterate(); may be NULL
 * @lost_fn: called with the CPU and the missed_events of a record of the
 *	selected buffer that follows a loss, as soon as it is read (the
 *	record is then handed to @fn with missed_events 0); may be NULL
 * @ctx: passed to the callbacks
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_tracedat_iterate_lost(struct ustack_tracedat *td, ustack_tracedat_fn fn,
				 ustack_tracedat_fn top_fn, ustack_tracedat_lost_fn lost_fn,
				 void *ctx)
{
	struct reader r = { .in = { td->buf, td->top }, .own = { td->own[0], td->own[1] } };
	int slot;

	r.nr[0] = nr_cpus(td->buf);
	if (top_fn && td->top != td->buf)
		r.nr[1] = nr_cpus(td->top);
	r.total = r.nr[0] + r.nr[1];
	td->corrupt = 0;
	td->stop = false;
	r.next = calloc(r.total > 0 ? r.total : 1, sizeof(*r.next));
	if (!r.next)
		return -1;
	for (slot = 0; slot < r.total; slot++) {
		r.next[slot] = read_next(td, &r, slot, true);
		tell_lost(&r, slot, lost_fn, ctx);
	}
	while (!td->stop && (slot = first_cpu(r.next, r.total)) >= 0) {
		if (slot < r.nr[0])
			fn(r.next[slot], ctx);
		else
			top_fn(r.next[slot], ctx);
		put_record(&r, slot, r.next[slot]);
		r.next[slot] = read_next(td, &r, slot, false);
		tell_lost(&r, slot, lost_fn, ctx);
	}
	for (slot = 0; slot < r.total; slot++)
		put_record(&r, slot, r.next[slot]);
	free(r.next);
	return 0;
}

/**
 * ustack_tracedat_stop - end the running ustack_tracedat_iterate() early
 * @td: the file being iterated
 *
 * Called from a callback: the record it was given is the last one. Reading
 * less matters on compressed files that libtracecmd reads itself (see
 * ustack-tracedat-cpu.c), where libtracecmd 1.3 (trace-cmd 3.1.6) pays for every
 * page read in time that grows with the pages read before (see
 * bench/pipeline/NOTES.md).
 */
void ustack_tracedat_stop(struct ustack_tracedat *td)
{
	td->stop = true;
}

/**
 * ustack_tracedat_corrupt - records dropped because they did not fit
 * @td: the open file
 *
 * Counts those of the last ustack_tracedat_iterate() call.
 */
unsigned long ustack_tracedat_corrupt(const struct ustack_tracedat *td)
{
	return td->corrupt;
}

/**
 * ustack_tracedat_own_reader - whether the selected buffer's CPU data is
 *	read by ustack-tracedat-cpu.c (bounded memory) rather than libtracecmd
 * @td: the open file
 */
bool ustack_tracedat_own_reader(const struct ustack_tracedat *td)
{
	return td->own[0] != NULL;
}

/**
 * ustack_tracedat_bad_pages - CPUs whose data ended early at a bad page
 * @td: the open file
 *
 * Each was said once when reached (a compressed chunk that does not
 * decompress, a sub-buffer whose commit runs past its page).
 */
unsigned long ustack_tracedat_bad_pages(const struct ustack_tracedat *td)
{
	return (td->own[0] ? ustack_tracedat_cpu_bad(td->own[0]) : 0) +
	       (td->own[1] ? ustack_tracedat_cpu_bad(td->own[1]) : 0);
}

void ustack_tracedat_close(struct ustack_tracedat *td)
{
	if (!td)
		return;
	close_inputs(td);
	ustack_tracedat_check_layout_free(&td->layout);
	if (td->fd >= 0)
		close(td->fd);
	free(td->file);
	free(td->why);
	free(td);
}
