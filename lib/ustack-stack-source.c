// SPDX-License-Identifier: LGPL-2.1
/*
 * The stack sources (ustack-stack-source.h): the rule that chooses one, and
 * the three of today behind one table of operations. Each opens the
 * instance the way it needs it, then, started, chooses its mapping source
 * (ustack-map-source.h) and says in one notice what the user gets.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <tracefs.h>

#include "ustack-err.h"
#include "ustack-fpcode.h"
#include "ustack-instance.h"
#include "ustack-map-source-int.h"
#include "ustack-perf-source.h"
#include "ustack-session.h"
#include "ustack-stack-source.h"
#include "ustack-warn.h"

/* The synchronous option's own limit (the kernel's FTRACE_STACK_ENTRIES) */
#define USERSTACKTRACE_DEPTH	8

struct stack_ops {
	enum ustack_source		id;
	const char			*name;
	struct ustack_stack_caps	caps;
	/*
	 * what it can do here, how its stacks are unwound (ss->caps), the
	 * instance's options, events and clock for its stacks
	 */
	int (*open)(struct ustack_stack_source *ss);
	/* its events and its mapping source (ss->maps), before tracing */
	int (*start)(struct ustack_stack_source *ss);
	void (*notice)(const struct ustack_stack_source *ss, char *buf, size_t size);
};

/**
 * struct ustack_stack_source - a run's stack source
 * @ops:	which one
 * @caps:	what it promises (@ops' own, the unwinding decided when it
 *		opens, the depth known once started)
 * @env:	what it was chosen and opened for (env.unwind: asked)
 * @feed:	what it feeds, once started
 * @maps:	its mapping source, once started
 * @perf:	the perf source's events
 * @why:	why this one rather than the one before it in the rule, ""
 *		when it was the first
 * @failed:	what a -errno of its open or start failed at ("cannot set
 *		options/userstacktrace"), "" when none
 * @copy_subbuf: the deferred source's stack copies: its sub-buffers'
 *		size (bytes), 0 when they could not hold a whole copy
 * @copy_held:	the deferred source's stack copies start at
 *		ustack_stack_source_release() (env.held)
 * @auto_unwind: --call-graph=auto: env.unwind was decided from the code
 *		of env.programs (decide_unwind())
 * @auto_why:	what decided it, for the notice
 */
struct ustack_stack_source {
	const struct stack_ops		*ops;
	struct ustack_stack_caps	caps;
	struct ustack_stack_env		env;
	struct ustack_stack_feed	feed;
	struct ustack_map_source	*maps;
	struct ustack_perf_source_opts	perf;
	char				why[320];
	char				failed[PATH_MAX + 32];
	int				copy_subbuf;
	bool				copy_held;
	bool				auto_unwind;
	char				auto_why[PATH_MAX + 256];
	/* kernel-abi.md version 4: mapping records of what exists, on demand */
	bool				mapping_records;
};

/*
 * The fallback in one line (the man page says the rest: why 8 frames, what
 * non-resident stack pages do, where the kernel patches are installed: an
 * installed user has no kernel-patches/ directory to look into).
 */
#define NO_DEFERRED_NOTICE \
	"no deferred user stacks on this kernel (options/userstacktrace_delay; " \
	"see THE FALLBACK in man trace-cmd-ustack): "

static const char sideband_notice[] =
	"addresses mapped through the mappings perf reports (side-band)";

/* ------------------------------------------------------------------ */
/* --call-graph=auto                                                  */
/* ------------------------------------------------------------------ */

/*
 * The first program whose code has no frame pointers (or cannot be read)
 * decides for copies; frame pointers only when every one keeps them, or
 * one is a 32-bit program (program_i386()). The main executable speaks
 * for its process: the libraries a program built with frame pointers
 * uses may lack them (Debian's libc does), but their frames are mostly
 * leaves (the system call wrappers), which leave %rbp as their caller
 * set it, and a walk that still leaves the code ends in "[unwind: ...]"
 * (fp_end() in ustack-pair.c).
 */
static bool program_keeps_fp(struct ustack_stack_source *ss, const char *path, int ret,
			     const struct ustack_fpcode *c)
{
	if (ret < 0) {
		snprintf(ss->auto_why, sizeof(ss->auto_why), "cannot read the code of %s (%s): "
			 "stack copies unwound with the files' CFI", path, ustack_err_strerror(ret));
		return false;
	}
	snprintf(ss->auto_why, sizeof(ss->auto_why), "%s %s frame pointers (%u of %u "
		 "functions set %%rbp up): %s", path, c->keeps_fp ? "keeps" : "has no",
		 c->fp, c->functions, c->keeps_fp ? "the kernel's frame-pointer walk" :
		 "stack copies unwound with the files' CFI");
	return c->keeps_fp;
}

/*
 * A 32-bit (i386) program: the kernel walks its frame pointers, as perf
 * record -g does. Its copies would be unwound with i386 CFI
 * (ustack-unwind.h), but its system calls go through the 32-bit vdso,
 * whose CFI the symbolizer does not have (it knows the tool's own
 * 64-bit vdso): the walk, whatever the others' code.
 */
static bool program_i386(struct ustack_stack_source *ss, const char *path, int ret,
			 const struct ustack_fpcode *code)
{
	if (ret < 0 || !code->i386)
		return false;
	snprintf(ss->auto_why, sizeof(ss->auto_why), "%s is a 32-bit (i386) program: the "
		 "kernel's frame-pointer walk, as perf record -g", path);
	return true;
}

/*
 * Decided once, before the source opens, as perf_event_attr.sample_type
 * is fixed when the events open (Documentation/architecture.md, "Which
 * unwinding"): the events of a run take copies or do not. Copies unwound
 * by CFI give the right stack for code with frame pointers as well, so
 * one program without them is enough for copies; each process still has
 * its own map of files, and the CFI of each.
 */
static void decide_unwind(struct ustack_stack_source *ss)
{
	const char *const *p = ss->env.programs;
	struct ustack_fpcode code;
	bool copy = false;
	int ret;

	ss->auto_unwind = true;
	ss->env.unwind = USTACK_UNWIND_COPY;
	if (!p || !*p) {
		snprintf(ss->auto_why, sizeof(ss->auto_why), "every process is traced, whatever "
			 "its code: stack copies unwound with the files' CFI");
		return;
	}
	for (; *p; p++) {
		ret = ustack_fpcode_check(*p, &code);
		if (program_i386(ss, *p, ret, &code))
			break;
		/* the first without frame pointers says why copies */
		if (!copy && !program_keeps_fp(ss, *p, ret, &code))
			copy = true;
	}
	if (copy && !*p)
		return;
	ss->env.unwind = USTACK_UNWIND_FP;
	ss->env.copy_size = 0;
}

/* The copies decided on cannot be taken (@why): the frame-pointer walk */
static void auto_without_copies(struct ustack_stack_source *ss, const char *why)
{
	size_t len = strlen(ss->auto_why);

	ss->env.unwind = USTACK_UNWIND_FP;
	ss->env.copy_size = 0;
	snprintf(ss->auto_why + len, sizeof(ss->auto_why) - len, ", but %s: the kernel's "
		 "frame-pointer walk", why);
}

/* ------------------------------------------------------------------ */
/* What each source does                                              */
/* ------------------------------------------------------------------ */

static int set_option(struct ustack_stack_source *ss, const char *opt)
{
	int err;

	if (ustack_instance_set_option(ss->env.ui, opt, true) >= 0)
		return 0;
	err = errno;
	snprintf(ss->failed, sizeof(ss->failed), "cannot set options/%s", opt);
	return -err;
}

/*
 * The stack copies asked for are the source's (USTACK_UNWIND_COPY):
 * unwound in user space, which the kernel's frame limits do not bound:
 * --max-stack does
 */
static void take_copies(struct ustack_stack_source *ss)
{
	ss->caps.unwind = USTACK_UNWIND_COPY;
	ss->caps.copy_size = ss->env.copy_size;
	ss->caps.max_depth = ss->env.max_stack ? ss->env.max_stack : USTACK_DWARF_MAX_FRAMES;
}

static bool copies(const struct ustack_stack_source *ss)
{
	return ss->caps.unwind == USTACK_UNWIND_COPY;
}

/*
 * The perf side-band as its mapping source (ustack_map_source_open_sideband()):
 * 0, 1 when perf refused it, -errno when its file cannot be written
 */
static int open_sideband(struct ustack_stack_source *ss, const struct ustack_perf_source_opts *src)
{
	int ret = ustack_map_source_open_sideband(ss->maps, src);

	if (ret < 0)
		snprintf(ss->failed, sizeof(ss->failed), "cannot write %s",
			 ss->feed.maps.sideband_file);
	return ret;
}

/* The perf side-band times its records with CLOCK_MONOTONIC: "mono" */
static void side_band_clock(struct ustack_stack_source *ss)
{
	if (!ss->env.clock_given)
		ustack_instance_write(ss->env.ui, "trace_clock", "mono");
}

/*
 * What the kernel puts around a stack copy in its sub-buffer, at most:
 * the sub-buffer's header (16 bytes), the event's header with its length
 * and a time stamp (16), the event's fixed fields (40) and a word per
 * register, 64 at most (512). 584 bytes, rounded up for what a later
 * kernel may add: a copy of N bytes is whole in sub-buffers of N plus this.
 */
#define COPY_OVERHEAD	1024

/*
 * The kernel cuts a copy to what one event of the instance holds
 * (CAPPED): about 3.8 KiB in the default 4 KiB sub-buffers, where perf
 * copies 8 KiB by default. So the run's instance gets sub-buffers that
 * hold the whole copy, before anything is traced (a change drops the
 * buffer's contents); the readers and the trace.dat take their size from
 * the instance. A kernel that refuses leaves the copies cut, which is said.
 */
static void copy_subbuf(struct ustack_stack_source *ss)
{
	unsigned int need = ss->caps.copy_size + COPY_OVERHEAD;
	struct ustack_instance *ui = ss->env.ui;
	int err;

	if (!ustack_instance_raise_subbuf(ui, need)) {
		ss->copy_subbuf = ustack_instance_subbuf_size(ui);
		return;
	}
	err = errno;
	if (err == ENOENT)
		ustack_warning("this kernel has no buffer_subbuf_size_kb: stack copies are cut "
			       "to what one event of a sub-buffer holds (CAPPED)");
	else
		ustack_warning("cannot raise buffer_subbuf_size_kb of %s to %u: %s: stack "
			       "copies are cut to what one event of a %d KiB sub-buffer holds "
			       "(CAPPED)", ustack_instance_name(ui), (need + 1023) / 1024,
			       strerror(err), ustack_instance_subbuf_size(ui) / 1024);
}

/* The kernel's stack copies of @bytes from now on (0: none); -1 and errno if refused */
static int copy_size_write(struct ustack_stack_source *ss, unsigned int bytes)
{
	char val[16];

	snprintf(val, sizeof(val), "%u", bytes);
	return ustack_instance_write(ss->env.ui, "user_stack_copy_size", val) < 0 ? -1 : 0;
}

/*
 * --call-graph=dwarf: the kernel copies the registers and the top of the
 * user stack in place of each stack (user_unwind_copy); the copy is unwound in
 * user space and its addresses mapped through the perf side-band, whose
 * records are timed with CLOCK_MONOTONIC.
 *
 * The copy is taken for every kernel entry that has an event of the
 * instance, the tracer's own among them: the info marker a recording
 * writes once tracing is on, before its held command runs, would cost a
 * copy of its own (8 KiB by default) that nothing unwinds. With held
 * tasks the size is written here, so that a kernel that refuses it is
 * told now, and taken back to 0 until they are released.
 */
static int deferred_copy_open(struct ustack_stack_source *ss)
{
	int err;

	take_copies(ss);
	/* registers, and the side-band to map the unwound frames */
	ss->caps.sideband = true;
	side_band_clock(ss);
	copy_subbuf(ss);
	if (!copy_size_write(ss, ss->caps.copy_size)) {
		if (ss->env.held)
			ss->copy_held = !copy_size_write(ss, 0);
		return 0;
	}
	err = errno;
	snprintf(ss->failed, sizeof(ss->failed), "cannot write user_stack_copy_size");
	return -err;
}

/* Kernel patch 14: the deferred stacks can come with a stack copy */
static bool has_copy(struct ustack_stack_source *ss)
{
	return tracefs_file_exists(ustack_instance_tracefs(ss->env.ui), "user_stack_copy_size");
}

/*
 * What the deferred source needs of the kernel for what it is asked: its
 * option, and for stack copies, user_stack_copy_size. Returns 0 or why not.
 */
static int deferred_refusal(struct ustack_stack_source *ss)
{
	if (!ustack_instance_has_option(ss->env.ui, "userstacktrace_delay"))
		return USTACK_ERR_NO_DEFERRED;
	if (ss->env.unwind == USTACK_UNWIND_COPY && !has_copy(ss))
		return USTACK_ERR_NO_COPY_SIZE;
	return 0;
}

/* The instance traces the events; the kernel writes their stacks later */
static int deferred_open(struct ustack_stack_source *ss)
{
	int ret;

	if (ss->auto_unwind && ss->env.unwind == USTACK_UNWIND_COPY && !has_copy(ss))
		auto_without_copies(ss, "this kernel has no user_stack_copy_size");
	ret = deferred_refusal(ss);

	if (ret < 0)
		return ret;
	ret = set_option(ss, "userstacktrace_delay");
	if (ret < 0)
		return ret;
	if (ss->env.unwind == USTACK_UNWIND_COPY) {
		ret = deferred_copy_open(ss);
		if (ret < 0)
			return ret;
	}
	if (ustack_instance_enable_event(ss->env.ui, "inode_cache", "inode_cache", NULL) < 0)
		ustack_warning("no inode_cache event: frames will stay unresolved");
	/* a version 3 kernel names files at their first use in a stack */
	ss->mapping_records = tracefs_file_exists(ustack_instance_tracefs(ss->env.ui),
						  "user_unwind_maps");
	ss->env.enable_events(ss->env.ctx);
	return 0;
}

/*
 * Frames name their files by id: the mapping source has nothing to feed,
 * but for the unwound copies (virtual addresses), the side-band.
 */
static int deferred_start(struct ustack_stack_source *ss)
{
	int ret;

	if (!copies(ss))
		return 0;
	ustack_session_set_perf_max_stack(ss->feed.maps.session, ss->env.max_stack);
	ret = open_sideband(ss, NULL);
	if (ret <= 0)
		return ret;
	/* nothing would map the unwound frames: the kernel's walk only */
	ustack_warning("no perf side-band (%s): --call-graph=dwarf is off, stacks are the "
		       "kernel's frame-pointer walk", ustack_map_source_no_perf(ss->maps));
	ustack_instance_write(ss->env.ui, "user_stack_copy_size", "0");
	ss->caps.unwind = USTACK_UNWIND_FP;
	ss->caps.copy_size = 0;
	return 0;
}

static void deferred_notice(const struct ustack_stack_source *ss, char *buf, size_t size)
{
	char room[64];

	if (!copies(ss)) {
		snprintf(buf, size, "%s", "");
		return;
	}
	if (ss->copy_subbuf)
		snprintf(room, sizeof(room), "in %d KiB sub-buffers", ss->copy_subbuf / 1024);
	else
		snprintf(room, sizeof(room), "cut to what one event of a sub-buffer holds");
	snprintf(buf, size, "deferred stacks unwound with the files' CFI from the user "
		 "registers and %u bytes of stack the kernel copies (user_stack_copy_size, "
		 "--call-graph=dwarf; %s), at most %u frames, %s", ss->caps.copy_size,
		 room, ss->caps.max_depth, sideband_notice);
}

/*
 * The samples carry their own stacks, and the copies asked for: only the
 * clock of the side-band
 */
static int perf_open(struct ustack_stack_source *ss)
{
	side_band_clock(ss);
	if (ss->env.unwind == USTACK_UNWIND_COPY)
		take_copies(ss);
	return 0;
}

/* One perf event per traced event, CPU and task: as many files as allowed */
static void raise_file_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int perf_refused(struct ustack_stack_source *ss);

/* Its events write into the side-band's rings: one ring, one clock */
static int perf_start(struct ustack_stack_source *ss)
{
	int ret;

	ss->perf.events = ss->feed.sampled;
	ss->perf.nr_events = ss->feed.nr_sampled;
	ss->perf.kernel = ss->env.kernel;
	ss->perf.dwarf_size = ss->caps.copy_size;
	/*
	 * Deferred user chains where the kernel has them (6.19), else
	 * synchronous; stack copies are unwound here instead
	 */
	ss->perf.defer = !copies(ss) && ustack_perf_source_defer_probe();
	ss->perf.max_stack = ustack_perf_source_max_stack();
	/* the kernel refuses more than its sysctl */
	if (ss->env.max_stack && ss->env.max_stack < ss->perf.max_stack)
		ss->perf.max_stack = ss->env.max_stack;
	/* a copy's unwind is bound by --max-stack alone (take_copies()) */
	if (!copies(ss))
		ss->caps.max_depth = ss->perf.max_stack;
	ustack_session_set_perf_max_stack(ss->feed.maps.session,
					  copies(ss) ? ss->env.max_stack : ss->perf.max_stack);
	/*
	 * Recording, the samples go to the file unread; a stack copy is
	 * unwound by a worker off the reader's path, the file keeping only
	 * what its unwind used (ustack-tracedat-sbtrim.h), or whole when
	 * the worker is behind: in sub-buffers that hold it whole
	 */
	ss->perf.unread = ss->feed.maps.record;
	if (ss->feed.maps.record && copies(ss))
		ustack_instance_raise_subbuf(ss->env.ui, ss->caps.copy_size + COPY_OVERHEAD);
	/*
	 * auto chose the frame-pointer walk for the programs that start
	 * traced: a program without them executed later gets stack copies
	 * of its own, live (ustack-pair-fpexec.c)
	 */
	if (ss->auto_unwind && !copies(ss) && !ss->perf.defer && !ss->feed.maps.record)
		ss->perf.exec_copy_size = USTACK_DWARF_SIZE_DEFAULT;
	raise_file_limit();
	ret = open_sideband(ss, &ss->perf);
	if (ret <= 0)
		return ret;
	return perf_refused(ss);
}

static void perf_notice(const struct ustack_stack_source *ss, char *buf, size_t size)
{
	if (copies(ss)) {
		snprintf(buf, size, NO_DEFERRED_NOTICE
			 "stacks from perf events, user registers and %u bytes of stack "
			 "unwound with the files' CFI (--call-graph=dwarf), at most %u frames, %s",
			 ss->caps.copy_size, ss->caps.max_depth, sideband_notice);
		return;
	}
	/* why not tracefs' deferred stacks: the kernel has none, or asked */
	if (ss->perf.defer) {
		snprintf(buf, size, "%sstacks from perf events, deferred "
			 "(perf_event_attr.defer_callchain: each sample's user stack comes "
			 "as the task returns to user space, paired by cookie), %s",
			 ss->env.want == USTACK_SOURCE_PERF ? "--stack-source=perf: " :
			 NO_DEFERRED_NOTICE, sideband_notice);
		return;
	}
	snprintf(buf, size, NO_DEFERRED_NOTICE
		 "stacks from perf events, synchronous, at most %u frames (%s), %s",
		 ss->perf.max_stack,
		 ss->perf.max_stack < ustack_perf_source_max_stack() ? "--max-stack" :
		 "kernel.perf_event_max_stack", sideband_notice);
}

/*
 * The instance traces the events and writes their stacks, 8 frames, by
 * their frame pointers: the option has no stack copies
 */
static int userstacktrace_open(struct ustack_stack_source *ss)
{
	int ret;

	if (ss->env.unwind == USTACK_UNWIND_COPY) {
		if (!ss->auto_unwind)
			return USTACK_ERR_NO_COPIES;
		auto_without_copies(ss, "the synchronous option takes no stack copies");
	}
	side_band_clock(ss);
	ret = set_option(ss, "userstacktrace");
	if (ret < 0)
		return ret;
	ss->env.enable_events(ss->env.ctx);
	return 0;
}

/* Mappings from the side-band, or where perf refuses it, /proc snapshots */
static int userstacktrace_start(struct ustack_stack_source *ss)
{
	int ret = open_sideband(ss, NULL);

	if (ret <= 0)
		return ret;
	return ustack_map_source_open_snapshots(ss->maps);
}

static void userstacktrace_notice(const struct ustack_stack_source *ss, char *buf,
				  size_t size)
{
	bool sideband = ustack_map_source_kind(ss->maps) == USTACK_MAPS_SIDEBAND;
	char more[768];
	size_t len;

	if (sideband)
		snprintf(more, sizeof(more), "%s", sideband_notice);
	else
		snprintf(more, sizeof(more),
			 "addresses mapped through /proc/<pid>/maps snapshots (no perf side-band: %s)",
			 ustack_map_source_no_perf(ss->maps));
	/* why not perf: asked for, or what refused it (said above if all of perf was) */
	len = strlen(more);
	if (ss->why[0] && sideband)
		snprintf(more + len, sizeof(more) - len, " (%s)", ss->why);
	else if (ss->env.want == USTACK_SOURCE_USERSTACKTRACE)
		snprintf(more + len, sizeof(more) - len, " (--stack-source=userstacktrace)");
	snprintf(buf, size, NO_DEFERRED_NOTICE "synchronous fallback, at most 8 frames, %s",
		 more);
}

static const struct stack_ops deferred_ops = {
	.id	= USTACK_SOURCE_DEFERRED,
	.name	= "tracefs-deferred",
	.caps	= { .deferred = true },
	.open	= deferred_open,
	.start	= deferred_start,
	.notice	= deferred_notice,
};

static const struct stack_ops perf_ops = {
	.id	= USTACK_SOURCE_PERF,
	.name	= "perf",
	.caps	= { .samples = true, .sideband = true },
	.open	= perf_open,
	.start	= perf_start,
	.notice	= perf_notice,
};

static const struct stack_ops userstacktrace_ops = {
	.id	= USTACK_SOURCE_USERSTACKTRACE,
	.name	= "userstacktrace",
	.caps	= { .sideband = true, .max_depth = USERSTACKTRACE_DEPTH },
	.open	= userstacktrace_open,
	.start	= userstacktrace_start,
	.notice	= userstacktrace_notice,
};

static const struct stack_ops *const sources[] = {
	&deferred_ops, &perf_ops, &userstacktrace_ops,
};

/* ------------------------------------------------------------------ */
/* The rule                                                           */
/* ------------------------------------------------------------------ */

static void use(struct ustack_stack_source *ss, const struct stack_ops *ops)
{
	ss->ops = ops;
	ss->caps = ops->caps;
}

/*
 * The rule, first half: the patched kernel's deferred stacks first (with
 * the stack copies, where asked, that its kernel takes), then perf
 * events; --stack-source forces one, which may refuse when it opens. The
 * second half is perf_refused().
 */
static void choose(struct ustack_stack_source *ss)
{
	size_t i;

	if (ss->env.want == USTACK_SOURCE_AUTO) {
		use(ss, deferred_refusal(ss) ? &perf_ops : &deferred_ops);
		return;
	}
	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (sources[i]->id == ss->env.want)
			use(ss, sources[i]);
}

/*
 * The rule, second half: where perf refuses its events, the userstacktrace
 * option, unless perf was asked for. The side-band is tried again alone.
 * The option has no stack copies: asked of perf, they are given up too.
 */
static int perf_refused(struct ustack_stack_source *ss)
{
	int ret;

	if (ss->env.want == USTACK_SOURCE_PERF)
		return USTACK_ERR_NO_PERF;
	snprintf(ss->why, sizeof(ss->why), "no perf stacks: %s",
		 ustack_map_source_no_perf(ss->maps));
	use(ss, &userstacktrace_ops);
	if (ss->auto_unwind && ss->env.unwind == USTACK_UNWIND_COPY)
		auto_without_copies(ss, "perf refused its events");
	ss->env.unwind = USTACK_UNWIND_FP;
	ss->env.copy_size = 0;
	ret = ss->ops->open(ss);
	if (ret < 0)
		return ret;
	return ss->ops->start(ss);
}

/* ------------------------------------------------------------------ */
/* What the capture asks                                              */
/* ------------------------------------------------------------------ */

/**
 * ustack_stack_source_choose - the stack source of a run, chosen once
 * @env:	what it is for (copied)
 * @out:	set to the source
 *
 * A source asked for by --stack-source is taken as asked: whether it
 * can run here, with the unwinding asked for, it says when it opens.
 * Returns 0 or -ENOMEM.
 */
int ustack_stack_source_choose(const struct ustack_stack_env *env,
			       struct ustack_stack_source **out)
{
	struct ustack_stack_source *ss = calloc(1, sizeof(*ss));

	*out = NULL;
	if (!ss)
		return -ENOMEM;
	ss->env = *env;
	if (ss->env.unwind == USTACK_UNWIND_AUTO)
		decide_unwind(ss);
	/* read here only */
	ss->env.programs = NULL;
	choose(ss);
	*out = ss;
	return 0;
}

/**
 * ustack_stack_source_name - the name --stack-source gives a source
 * @id: the source
 */
const char *ustack_stack_source_name(enum ustack_source id)
{
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (sources[i]->id == id)
			return sources[i]->name;
	return "auto";
}

/**
 * ustack_stack_source_caps - what the source promises
 * @ss: the source
 *
 * How its stacks are unwound is known once it opened, the depth limit
 * once it started; the pointer stays valid.
 */
const struct ustack_stack_caps *ustack_stack_source_caps(const struct ustack_stack_source *ss)
{
	return &ss->caps;
}

/**
 * ustack_stack_source_open - set the instance up for the source's stacks
 * @ss:		the source
 *
 * The source decides how its stacks are unwound (caps.unwind), from what
 * env.unwind asked. A source whose stacks the instance writes enables the
 * traced events (the env's enable_events()).
 *
 * Returns 0; a refusal (an enum ustack_err: what it was asked cannot be
 * done here); -errno when the instance cannot be set up.
 * ustack_stack_source_strerror() says which.
 */
int ustack_stack_source_open(struct ustack_stack_source *ss)
{
	return ss->ops->open(ss);
}

/**
 * ustack_stack_source_start - open its events and its mapping source
 * @ss:		an open source
 * @feed:	what it feeds (copied; its pointers must outlive the source,
 *		but @feed->pids, read only here)
 *
 * Before tracing starts: the mapping source describes what exists then.
 * A source may give way to the next in the rule here (perf to
 * userstacktrace), which opens the instance for itself.
 *
 * Returns 0; -ENOMEM; a refusal (an enum ustack_err) when the source
 * asked for cannot run; another -errno when the side-band's file cannot
 * be written or the instance set up. ustack_stack_source_strerror() says
 * which.
 */
int ustack_stack_source_start(struct ustack_stack_source *ss,
			      const struct ustack_stack_feed *feed)
{
	int ret;

	ss->feed = *feed;
	/* the mapping source reads its part of the feed here, in place */
	ss->maps = ustack_map_source_new(ss->env.ui, &ss->feed.maps);
	if (!ss->maps)
		return -ENOMEM;
	ret = ss->ops->start(ss);
	/* the watched processes are the caller's, read now only */
	ss->feed.maps.pids = NULL;
	ss->feed.maps.nr_pids = 0;
	return ret;
}

/**
 * ustack_stack_source_usage_error - whether a refusal is the command line's
 * @err: what the source's open returned
 *
 * A source the command line forced (--stack-source) that never gives
 * what the command line also asked for (stack copies of userstacktrace):
 * no kernel or permission would change that, the options contradict each
 * other, as other bad command lines do (exit 64).
 */
bool ustack_stack_source_usage_error(int err)
{
	return err == USTACK_ERR_NO_COPIES;
}

/**
 * ustack_stack_source_strerror - the one line that says why it failed
 * @ss:		the source
 * @err:	what its open or start returned
 * @buf:	where to write it
 * @size:	room in @buf
 *
 * A refusal names the source asked for ("--stack-source=perf: ..."), a
 * -errno what could not be set or written. Returns @buf.
 */
const char *ustack_stack_source_strerror(const struct ustack_stack_source *ss, int err,
					 char *buf, size_t size)
{
	const char *name = ustack_stack_source_name(ss->env.want);

	/* perf's own reason is more than "refused" */
	if (err == USTACK_ERR_NO_PERF && ss->maps)
		snprintf(buf, size, "--stack-source=%s: %s", name,
			 ustack_map_source_no_perf(ss->maps));
	else if (err >= USTACK_ERR_NO_DEFERRED && err <= USTACK_ERR_NO_PERF)
		snprintf(buf, size, "--stack-source=%s: %s", name, ustack_err_strerror(err));
	else if (err == -ENOMEM)
		snprintf(buf, size, "%s", ustack_err_strerror(USTACK_ERR_NOMEM));
	else if (ss->failed[0])
		snprintf(buf, size, "%s: %s", ss->failed, ustack_err_strerror(err));
	else
		snprintf(buf, size, "%s", ustack_err_strerror(err));
	return buf;
}

/**
 * ustack_stack_source_maps - the mapping source it started
 * @ss: a started source
 */
struct ustack_map_source *ustack_stack_source_maps(const struct ustack_stack_source *ss)
{
	return ss->maps;
}

/**
 * ustack_stack_source_enable - deliver from now on (tracing is on)
 * @ss: a started source
 */
void ustack_stack_source_enable(struct ustack_stack_source *ss)
{
	ustack_map_source_enable(ss->maps);
}

/**
 * ustack_stack_source_name_mappings - name the files mapped before tracing
 * @ss: an enabled source, with tracing on in its instance
 *
 * A version 4 kernel names files at mmap time: the mappings made before
 * tracing was on get their records now. Tracing must be on already: the
 * kernel writes the records into the buffer, which drops them while
 * tracing_on is 0.
 */
void ustack_stack_source_name_mappings(struct ustack_stack_source *ss)
{
	if (ss->ops->id == USTACK_SOURCE_DEFERRED && ss->mapping_records &&
	    ustack_instance_trigger(ss->env.ui, "user_unwind_maps", "1") < 0)
		ustack_warning("cannot write user_unwind_maps: %s: files mapped before "
			       "tracing started stay unnamed", strerror(errno));
}

/**
 * ustack_stack_source_release - the held tasks run from now on (env.held)
 * @ss: an enabled source
 *
 * The deferred source's stack copies start here: the tracer's own kernel
 * entries before (its info marker) took none.
 */
void ustack_stack_source_release(struct ustack_stack_source *ss)
{
	if (!ss->copy_held || !copies(ss))
		return;
	if (copy_size_write(ss, ss->caps.copy_size) < 0)
		ustack_warning("cannot write user_stack_copy_size: %s: stacks are the kernel's "
			       "frame-pointer walk", strerror(errno));
}

/**
 * ustack_stack_source_sideband_exec - a launched command's exec is told by
 *	the side-band, and an event for it would cost a stack copy
 * @ss: a started source
 *
 * The deferred source takes a stack, and with stack copies a copy of
 * the new image's stack (argv, environment and auxiliary vector, up to the
 * copy's size), for each kernel entry that has an event of the instance:
 * the exec of sched:sched_process_exec too, though no one asked for its
 * stack. The side-band, which the copies need, reports the exec itself
 * (a comm record flagged exec), which ends the command's skip as well.
 */
bool ustack_stack_source_sideband_exec(const struct ustack_stack_source *ss)
{
	return ss->ops->id == USTACK_SOURCE_DEFERRED && copies(ss) &&
	       ustack_map_source_kind(ss->maps) == USTACK_MAPS_SIDEBAND;
}

/**
 * ustack_stack_source_notice - what the run's source means for the user
 * @ss:		a started source
 * @buf:	the line, empty when there is nothing to say (deferred)
 * @size:	room in @buf
 */
void ustack_stack_source_notice(const struct ustack_stack_source *ss, char *buf, size_t size)
{
	char body[1024];

	ss->ops->notice(ss, body, sizeof(body));
	if (!ss->auto_unwind)
		snprintf(buf, size, "%s", body);
	else
		snprintf(buf, size, "%s%s--call-graph=auto: %s", body, *body ? "; " : "",
			 ss->auto_why);
}

/**
 * ustack_stack_source_free - stop the source and free it
 * @ss: the source (may be NULL)
 *
 * After the readers: they poll its side-band.
 */
void ustack_stack_source_free(struct ustack_stack_source *ss)
{
	if (!ss)
		return;
	ustack_map_source_free(ss->maps);
	free(ss);
}
