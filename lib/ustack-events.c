// SPDX-License-Identifier: LGPL-2.1
/*
 * Our records: classification and decoders (see ustack-events.h).
 *
 * Events and fields are looked up by name once, when the formats are
 * known; any of them may be missing (an older kernel, a trace.dat of the
 * fallback path), and then its id stays -1. Fields are read with bounds
 * checks and through a copy: u64 fields may be only 4-byte aligned.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "ustack-events.h"
#include "ustack-sample-event.h"
#include "ustack-sideband.h"

struct fmt_cookie {
	int			id;
	struct tep_format_field	*cookie;
};

struct fmt_stack {
	int			id;
	struct tep_format_field	*cookie;
	struct tep_format_field	*flags;
	struct tep_format_field	*offsets;
	struct tep_format_field	*ids;
};

struct fmt_inode {
	int			id;
	struct tep_format_field	*fid;
	struct tep_format_field	*ino;
	struct tep_format_field	*dev;
	struct tep_format_field	*tgid;
	struct tep_format_field	*flags;
	struct tep_format_field	*build_id;
	struct tep_format_field	*path;
};

struct fmt_copy {
	int			id;
	struct tep_format_field	*cookie;
	struct tep_format_field	*regs_mask;
	struct tep_format_field	*abi;
	struct tep_format_field	*flags;
	struct tep_format_field	*regs;
	struct tep_format_field	*stack;
};

/* ftrace:kernel_stack and ftrace:user_stack */
struct fmt_trace {
	int			id;
	struct tep_format_field	*size;		/* kernel_stack only */
	struct tep_format_field	*tgid;		/* user_stack only */
	struct tep_format_field	*caller;
};

/* ftrace:print, sched_process_exec, task_newtask, task_rename: a few fields */
struct fmt_other {
	int			id;
	struct tep_format_field	*a;
	struct tep_format_field	*b;
	struct tep_format_field	*comm;
};

/* ustack:sample and _copy (ustack-sample-event.h): @ok when its fields are where we write them */
struct fmt_sample {
	int			id;
	bool			ok;
};

struct ustack_events {
	struct tep_handle	*tep;
	/*
	 * common_type and common_pid, where every record has them (NULL:
	 * left to libtraceevent): read here, a record's type costs a tenth
	 * of tep_data_type()'s, which a perf source pays some times an event
	 */
	struct tep_format_field	*common_type;
	struct tep_format_field	*common_pid;
	unsigned int		have;
	unsigned int		helpers;
	struct fmt_cookie	cookie;
	struct fmt_stack	stack;
	struct fmt_copy		copy;
	struct fmt_inode	inode;
	struct fmt_trace	kstack;
	struct fmt_trace	ustack;
	struct fmt_other	print;		/* a: buf */
	struct fmt_other	exec;		/* a: pid */
	struct fmt_other	newtask;	/* a: pid, b: clone_flags, comm */
	struct fmt_other	rename;		/* a: pid (if any), comm: newcomm */
	struct fmt_sample	sample;
	struct fmt_sample	sample_copy;
};

/* ------------------------------------------------------------------ */
/* Formats                                                            */
/* ------------------------------------------------------------------ */

/* Every format the setup_*() below look up, as "system/event" */
static const char * const read_formats[] = {
	"ftrace/print",
	"ftrace/kernel_stack",
	"ftrace/user_stack",
	"ftrace/user_unwind_cookie",
	"ftrace/user_unwind_stack",
	"ftrace/user_unwind_copy",
	"inode_cache/inode_cache",
	"sched/sched_process_exec",
	"task/task_newtask",
	"task/task_rename",
	NULL
};

/**
 * ustack_events_formats - the formats this module reads
 *
 * Returns a NULL-terminated list of "system/event" names, for a capture
 * to parse and to write into its trace.dat beside the traced events'.
 * Some may not exist on this kernel (inode_cache without the patches).
 */
const char * const *ustack_events_formats(void)
{
	return read_formats;
}

static struct tep_event *find(struct ustack_events *ev, const char *sys, const char *name)
{
	return tep_find_event_by_name(ev->tep, sys, name);
}

static struct tep_format_field *field(struct tep_event *event, const char *name)
{
	return event ? tep_find_field(event, name) : NULL;
}

/*
 * The common fields have one place in every format: the first one's. Kept
 * when they are as the kernel has them, a u16 and an int, in this
 * machine's byte order (else libtraceevent reads them)
 */
static void setup_common(struct ustack_events *ev)
{
	struct tep_event *e = tep_get_first_event(ev->tep);
	struct tep_format_field *type, *pid;

	if (!e || tep_is_file_bigendian(ev->tep) != tep_is_local_bigendian(ev->tep))
		return;
	type = tep_find_common_field(e, "common_type");
	pid = tep_find_common_field(e, "common_pid");
	if (type && type->size == 2 && type->offset >= 0)
		ev->common_type = type;
	if (pid && pid->size == 4 && pid->offset >= 0)
		ev->common_pid = pid;
}

static void setup_cookie(struct ustack_events *ev)
{
	struct tep_event *e = find(ev, "ftrace", "user_unwind_cookie");
	struct fmt_cookie *f = &ev->cookie;

	f->cookie = field(e, "cookie");
	if (!f->cookie)
		return;
	f->id = e->id;
	ev->have |= USTACK_HAVE_COOKIE;
}

static void setup_stack(struct ustack_events *ev)
{
	struct tep_event *e = find(ev, "ftrace", "user_unwind_stack");
	struct fmt_stack *f = &ev->stack;

	f->cookie = field(e, "cookie");
	f->flags = field(e, "flags");
	f->offsets = field(e, "offsets");
	f->ids = field(e, "ids");
	if (!f->cookie || !f->offsets || !f->ids)
		return;
	f->id = e->id;
	ev->have |= USTACK_HAVE_STACK;
}

static void setup_copy(struct ustack_events *ev)
{
	struct tep_event *e = find(ev, "ftrace", "user_unwind_copy");
	struct fmt_copy *f = &ev->copy;

	f->cookie = field(e, "cookie");
	f->regs_mask = field(e, "regs_mask");
	f->abi = field(e, "abi");
	f->flags = field(e, "flags");
	f->regs = field(e, "regs");
	f->stack = field(e, "stack");
	if (!f->cookie || !f->regs_mask || !f->regs || !f->stack)
		return;
	f->id = e->id;
	ev->have |= USTACK_HAVE_COPY;
}

static void setup_inode(struct ustack_events *ev)
{
	struct tep_event *e = find(ev, "inode_cache", "inode_cache");
	struct fmt_inode *f = &ev->inode;

	f->fid = field(e, "id");
	f->ino = field(e, "ino");
	f->dev = field(e, "dev");
	f->tgid = field(e, "tgid");
	f->flags = field(e, "flags");
	f->build_id = field(e, "build_id");
	f->path = field(e, "path");
	if (!f->fid || !f->path)
		return;
	f->id = e->id;
	ev->have |= USTACK_HAVE_INODE;
}

static void setup_traces(struct ustack_events *ev)
{
	struct tep_event *k = find(ev, "ftrace", "kernel_stack");
	struct tep_event *u = find(ev, "ftrace", "user_stack");

	ev->kstack.size = field(k, "size");
	ev->kstack.caller = field(k, "caller");
	if (ev->kstack.caller) {
		ev->kstack.id = k->id;
		ev->have |= USTACK_HAVE_KSTACK;
	}
	ev->ustack.tgid = field(u, "tgid");
	ev->ustack.caller = field(u, "caller");
	if (ev->ustack.caller) {
		ev->ustack.id = u->id;
		ev->have |= USTACK_HAVE_USTACK;
	}
}

static void setup_other(struct ustack_events *ev, struct fmt_other *f, const char *sys,
			const char *name, const char *a, const char *b)
{
	struct tep_event *e = find(ev, sys, name);

	f->a = field(e, a);
	f->b = b ? field(e, b) : NULL;
	if (f->a && (!b || f->b))
		f->id = e->id;
}

/* task_rename: some kernels dropped its pid field (it is always current's) */
static void setup_rename(struct ustack_events *ev)
{
	struct tep_event *e = find(ev, "task", "task_rename");
	struct fmt_other *f = &ev->rename;

	f->a = field(e, "pid");
	f->comm = field(e, "newcomm");
	if (f->comm)
		f->id = e->id;
}

/* ustack:sample's fields, then ustack:sample_copy's, where we write them */
static const struct {
	const char	*name;
	int		offset;
	int		size;
} sample_fields[] = {
	{ "pid", USTACK_SAMPLE_OFF_PID, 4 }, { "tid", USTACK_SAMPLE_OFF_TID, 4 },
	{ "cpu", USTACK_SAMPLE_OFF_CPU, 4 }, { "flags", USTACK_SAMPLE_OFF_FLAGS, 4 },
	{ "chain", USTACK_SAMPLE_OFF_CHAIN, 4 }, { "raw", USTACK_SAMPLE_OFF_RAW, 4 },
	{ "regs_mask", USTACK_SAMPLE_OFF_REGS_MASK, 8 },
	{ "stack_size", USTACK_SAMPLE_OFF_STACK_SIZE, 4 }, { "umax", USTACK_SAMPLE_OFF_UMAX, 4 },
	{ "regs", USTACK_SAMPLE_OFF_REGS, 4 }, { "stack", USTACK_SAMPLE_OFF_STACK, 4 },
	{ "kept", USTACK_SAMPLE_OFF_KEPT, 4 },
};
#define SAMPLE_NR_FIELDS	6

static void setup_sample(struct ustack_events *ev, struct fmt_sample *fs, const char *name,
			 size_t nr)
{
	struct tep_event *e = find(ev, USTACK_SAMPLE_SYSTEM, name);
	struct tep_format_field *f;
	size_t i;

	if (!e)
		return;
	fs->id = e->id;
	for (i = 0; i < nr; i++) {
		f = field(e, sample_fields[i].name);
		if (!f || f->offset != sample_fields[i].offset || f->size != sample_fields[i].size)
			return;
	}
	fs->ok = true;
}

/**
 * ustack_events_new - find our events in a set of formats
 * @tep: the formats (live tracefs or a trace.dat); not owned
 *
 * Returns NULL when out of memory.
 */
struct ustack_events *ustack_events_new(struct tep_handle *tep)
{
	struct ustack_events *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->tep = tep;
	ev->cookie.id = ev->stack.id = ev->copy.id = ev->inode.id = -1;
	ev->kstack.id = ev->ustack.id = -1;
	ev->print.id = ev->exec.id = ev->newtask.id = ev->rename.id = -1;
	ev->sample.id = ev->sample_copy.id = -1;
	setup_common(ev);
	setup_cookie(ev);
	setup_stack(ev);
	setup_copy(ev);
	setup_inode(ev);
	setup_traces(ev);
	setup_other(ev, &ev->print, "ftrace", "print", "buf", NULL);
	setup_other(ev, &ev->exec, "sched", "sched_process_exec", "pid", NULL);
	setup_other(ev, &ev->newtask, "task", "task_newtask", "pid", "clone_flags");
	ev->newtask.comm = field(find(ev, "task", "task_newtask"), "comm");
	setup_rename(ev);
	setup_sample(ev, &ev->sample, USTACK_SAMPLE_NAME, SAMPLE_NR_FIELDS);
	setup_sample(ev, &ev->sample_copy, USTACK_SAMPLE_COPY_NAME,
		     sizeof(sample_fields) / sizeof(sample_fields[0]));
	return ev;
}

void ustack_events_free(struct ustack_events *ev)
{
	free(ev);
}

struct tep_handle *ustack_events_tep(const struct ustack_events *ev)
{
	return ev->tep;
}

/**
 * ustack_events_have - which of our events the formats have
 * @ev: the events
 *
 * Returns a mask of USTACK_HAVE_*.
 */
unsigned int ustack_events_have(const struct ustack_events *ev)
{
	return ev->have;
}

/**
 * ustack_events_set_helpers - events the capture enabled for itself
 * @ev:		the events
 * @helpers:	USTACK_HELPER_* (from the capture, or its info marker)
 *
 * Their records are classified USTACK_REC_OURS from then on.
 */
void ustack_events_set_helpers(struct ustack_events *ev, unsigned int helpers)
{
	ev->helpers = helpers;
}

/* ------------------------------------------------------------------ */
/* Reading fields                                                     */
/* ------------------------------------------------------------------ */

static bool read_num(const struct ustack_events *ev, const struct tep_record *rec,
		     int offset, int size, uint64_t *val)
{
	unsigned char buf[8];

	if (size <= 0 || size > 8 || offset < 0 || offset + size > rec->size)
		return false;
	/* u64 fields may be only 4-byte aligned: copy before reading */
	memcpy(buf, (const char *)rec->data + offset, size);
	*val = tep_read_number(ev->tep, buf, size);
	return true;
}

static uint64_t field_num(const struct ustack_events *ev, const struct tep_record *rec,
			  const struct tep_format_field *f, uint64_t dflt)
{
	uint64_t val;

	if (!f || !read_num(ev, rec, f->offset, f->size, &val))
		return dflt;
	return val;
}

/* A __data_loc (or __rel_loc) field: pointer into the record and length. */
static const void *field_dyn(const struct ustack_events *ev, const struct tep_record *rec,
			     const struct tep_format_field *f, unsigned int *len)
{
	unsigned int off;
	uint64_t loc;

	*len = 0;
	if (!f || !read_num(ev, rec, f->offset, 4, &loc))
		return NULL;
	off = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	*len = loc >> 16;
	if (off + *len > (unsigned int)rec->size) {
		*len = 0;
		return NULL;
	}
	return (const char *)rec->data + off;
}

static uint64_t array_elem(const struct ustack_events *ev, const void *base, unsigned int i,
			   unsigned int esize)
{
	unsigned char buf[8];

	memcpy(buf, (const char *)base + (size_t)i * esize, esize);
	return tep_read_number(ev->tep, buf, esize);
}

/* common_type, as tep_data_type() reads it */
static int rec_type(const struct ustack_events *ev, const struct tep_record *rec)
{
	const struct tep_format_field *f = ev->common_type;
	uint16_t type;

	if (!f || f->offset + 2 > rec->size)
		return tep_data_type(ev->tep, (struct tep_record *)rec);
	memcpy(&type, (const char *)rec->data + f->offset, 2);
	return type;
}

/* ------------------------------------------------------------------ */
/* Classification                                                     */
/* ------------------------------------------------------------------ */

static bool is_marker(const char *text)
{
	return !strncmp(text, USTACK_MAPS_MARKER, strlen(USTACK_MAPS_MARKER)) ||
	       !strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER)) ||
	       !strncmp(text, USTACK_SB_MARKER, strlen(USTACK_SB_MARKER));
}

/**
 * ustack_events_classify - what a record is
 * @ev:		the events
 * @rec:	a record of the formats @ev was made from
 */
enum ustack_rec ustack_events_classify(const struct ustack_events *ev,
				       const struct tep_record *rec)
{
	int type = rec_type(ev, rec);
	const char *text;

	if (type == ev->cookie.id)
		return USTACK_REC_COOKIE;
	if (type == ev->stack.id)
		return USTACK_REC_STACK;
	if (type == ev->copy.id)
		return USTACK_REC_COPY;
	if (type == ev->inode.id)
		return USTACK_REC_INODE;
	if (type == ev->kstack.id)
		return USTACK_REC_KSTACK;
	if (type == ev->ustack.id)
		return USTACK_REC_USTACK;
	if (type == ev->sample.id || type == ev->sample_copy.id)
		return USTACK_REC_OURS;
	if (type == ev->print.id) {
		text = ustack_events_print_text(ev, rec);
		return text && is_marker(text) ? USTACK_REC_OURS : USTACK_REC_EVENT;
	}
	if ((type == ev->exec.id && (ev->helpers & USTACK_HELPER_EXEC)) ||
	    (type == ev->newtask.id && (ev->helpers & USTACK_HELPER_NEWTASK)) ||
	    (type == ev->rename.id && (ev->helpers & USTACK_HELPER_RENAME)))
		return USTACK_REC_OURS;
	return USTACK_REC_EVENT;
}

/**
 * ustack_events_pid - common_pid of a record
 * @ev:		the events
 * @rec:	the record
 */
int ustack_events_pid(const struct ustack_events *ev, const struct tep_record *rec)
{
	const struct tep_format_field *f = ev->common_pid;
	int32_t pid;

	if (!f || f->offset + 4 > rec->size)
		return tep_data_pid(ev->tep, (struct tep_record *)rec);
	memcpy(&pid, (const char *)rec->data + f->offset, 4);
	return pid;
}

/* ------------------------------------------------------------------ */
/* Decoders                                                           */
/* ------------------------------------------------------------------ */

/**
 * ustack_events_cookie - the cookie of a ftrace:user_unwind_cookie record
 * @ev:		the events
 * @rec:	the record
 *
 * Returns 0 when the kernel could not ask for a stack.
 */
uint64_t ustack_events_cookie(const struct ustack_events *ev, const struct tep_record *rec)
{
	return field_num(ev, rec, ev->cookie.cookie, 0);
}

/**
 * ustack_events_stack - cookie, flags and size of a deferred stack
 * @ev:		the events
 * @rec:	a ftrace:user_unwind_stack record
 * @out:	filled in
 */
void ustack_events_stack(const struct ustack_events *ev, const struct tep_record *rec,
			 struct ustack_stack_rec *out)
{
	unsigned int lo, li;
	const void *offs, *ids;

	offs = field_dyn(ev, rec, ev->stack.offsets, &lo);
	ids = field_dyn(ev, rec, ev->stack.ids, &li);
	out->cookie = field_num(ev, rec, ev->stack.cookie, 0);
	out->flags = field_num(ev, rec, ev->stack.flags, 0);
	out->nr = offs ? lo / 8 : 0;
	if (!ids || li / 8 < out->nr)
		out->nr = ids ? li / 8 : 0;
}

/**
 * ustack_events_stack_frames - the frames of a deferred stack
 * @ev:		the events
 * @rec:	a ftrace:user_unwind_stack record
 * @offsets:	room for @nr file offsets (or addresses, see ustack.h)
 * @ids:	room for @nr file ids
 * @nr:		at most what ustack_events_stack() said
 */
void ustack_events_stack_frames(const struct ustack_events *ev, const struct tep_record *rec,
				uint64_t *offsets, uint64_t *ids, unsigned int nr)
{
	unsigned int lo, li, i;
	const void *offs, *idv;

	offs = field_dyn(ev, rec, ev->stack.offsets, &lo);
	idv = field_dyn(ev, rec, ev->stack.ids, &li);
	if (nr > lo / 8)
		nr = lo / 8;
	if (nr > li / 8)
		nr = li / 8;
	if (!nr)
		return;
	/* The common case, data of this machine's byte order: copy the arrays */
	if (tep_is_file_bigendian(ev->tep) == tep_is_local_bigendian(ev->tep)) {
		memcpy(offsets, offs, (size_t)nr * 8);
		memcpy(ids, idv, (size_t)nr * 8);
		return;
	}
	for (i = 0; i < nr; i++) {
		offsets[i] = array_elem(ev, offs, i, 8);
		ids[i] = array_elem(ev, idv, i, 8);
	}
}

/**
 * ustack_events_copy - the user registers and stack copy of a deferred stack
 * @ev:		the events
 * @rec:	a ftrace:user_unwind_copy record
 * @out:	filled in; @out->stack points into @rec
 *
 * Returns false for a record whose registers do not match its mask (a
 * damaged file): it cannot be unwound.
 */
bool ustack_events_copy(const struct ustack_events *ev, const struct tep_record *rec,
			struct ustack_copy_rec *out)
{
	const struct fmt_copy *fc = &ev->copy;
	unsigned int len, i;
	const void *regs;

	memset(out, 0, sizeof(*out));
	out->cookie = field_num(ev, rec, fc->cookie, 0);
	out->regs_mask = field_num(ev, rec, fc->regs_mask, 0);
	out->abi = field_num(ev, rec, fc->abi, 0);
	out->flags = field_num(ev, rec, fc->flags, 0);
	regs = field_dyn(ev, rec, fc->regs, &len);
	out->nr_regs = len / 8;
	if (!regs || !out->nr_regs || out->nr_regs > USTACK_COPY_REGS_MAX ||
	    out->nr_regs != (unsigned int)__builtin_popcountll(out->regs_mask))
		return false;
	for (i = 0; i < out->nr_regs; i++)
		out->regs[i] = array_elem(ev, regs, i, 8);
	out->stack = field_dyn(ev, rec, fc->stack, &len);
	out->stack_size = out->stack ? len : 0;
	return true;
}

/**
 * ustack_events_inode - the file an inode_cache record announces
 * @ev:		the events
 * @rec:	the record
 * @out:	filled in; @out->path is allocated (free() it)
 *
 * Returns 0, or -1 when out of memory.
 */
int ustack_events_inode(const struct ustack_events *ev, const struct tep_record *rec,
			struct ustack_mapping *out)
{
	const struct fmt_inode *f = &ev->inode;
	const void *bid, *path;
	unsigned int blen, plen;

	memset(out, 0, sizeof(*out));
	out->id = field_num(ev, rec, f->fid, 0);
	out->ts = rec->ts;
	out->ino = field_num(ev, rec, f->ino, 0);
	out->dev = field_num(ev, rec, f->dev, 0);
	out->tgid = field_num(ev, rec, f->tgid, 0);
	out->flags = field_num(ev, rec, f->flags, 0);
	bid = field_dyn(ev, rec, f->build_id, &blen);
	if (bid) {
		out->build_id_len = blen > USTACK_BUILD_ID_MAX ? USTACK_BUILD_ID_MAX : blen;
		memcpy(out->build_id, bid, out->build_id_len);
	}
	path = field_dyn(ev, rec, f->path, &plen);
	out->path = strndup(path ? path : "", plen);
	return out->path ? 0 : -1;
}

/* Where the caller[] array of a stack trace is, and its element size. */
static unsigned int trace_slots(const struct ustack_events *ev, const struct tep_record *rec,
				const struct fmt_trace *f, unsigned int *esize)
{
	*esize = f->caller->elementsize ? f->caller->elementsize : 8;
	if (*esize > 8 || f->caller->offset >= rec->size)
		return 0;
	return (rec->size - f->caller->offset) / *esize;
}

/**
 * ustack_events_kstack - the addresses of a ftrace:kernel_stack record
 * @ev:		the events
 * @rec:	the record
 * @addrs:	room for @max addresses, leaf first; NULL to count them
 * @max:	room in @addrs
 *
 * Unused slots (0) and the end marker of old kernels (ULONG_MAX) are
 * skipped. Returns how many addresses were (or would be) stored.
 */
unsigned int ustack_events_kstack(const struct ustack_events *ev, const struct tep_record *rec,
				  uint64_t *addrs, unsigned int max)
{
	const struct fmt_trace *f = &ev->kstack;
	unsigned int esize, slots, nr, i, n = 0;
	const char *base;
	uint64_t addr;

	slots = trace_slots(ev, rec, f, &esize);
	nr = f->size ? field_num(ev, rec, f->size, slots) : slots;
	if (nr > slots)
		nr = slots;
	base = (const char *)rec->data + f->caller->offset;
	for (i = 0; i < nr; i++) {
		addr = array_elem(ev, base, i, esize);
		if (!addr || addr == (esize == 8 ? UINT64_MAX : UINT32_MAX))
			continue;
		if (addrs && n >= max)
			break;
		if (addrs)
			addrs[n] = addr;
		n++;
	}
	return n;
}

/**
 * ustack_events_ustack_tgid - thread group of a ftrace:user_stack record
 * @ev:		the events
 * @rec:	the record
 *
 * Returns 0 when the format has no tgid.
 */
int ustack_events_ustack_tgid(const struct ustack_events *ev, const struct tep_record *rec)
{
	return field_num(ev, rec, ev->ustack.tgid, 0);
}

/* Slots of a ftrace:user_stack record's caller[] (8 on every kernel so far) */
static unsigned int ustack_slots(const struct ustack_events *ev, const struct tep_record *rec,
				 unsigned int *esize)
{
	const struct fmt_trace *f = &ev->ustack;
	unsigned int slots = trace_slots(ev, rec, f, esize);

	if (f->caller->arraylen && slots > (unsigned int)f->caller->arraylen)
		slots = f->caller->arraylen;
	return slots;
}

/**
 * ustack_events_ustack_full - whether a ftrace:user_stack record used every slot
 * @ev:		the events
 * @rec:	the record
 *
 * The kernel stops walking when caller[] is full and says nothing, so a
 * full record is a stack that may go on: callers mark it truncated (a
 * chain exactly as deep as the array is marked too, which cannot be told
 * apart). Returns false for a record without slots.
 */
bool ustack_events_ustack_full(const struct ustack_events *ev, const struct tep_record *rec)
{
	unsigned int esize, slots = ustack_slots(ev, rec, &esize);

	return slots && ustack_events_ustack(ev, rec, NULL, 0) == slots;
}

/**
 * ustack_events_ustack - the addresses of a ftrace:user_stack record
 * @ev:		the events
 * @rec:	the record
 * @addrs:	room for @max virtual addresses, leaf first; NULL to count
 * @max:	room in @addrs
 *
 * The stack ends at the first unused (zero) slot. Returns how many
 * addresses were (or would be) stored.
 */
unsigned int ustack_events_ustack(const struct ustack_events *ev, const struct tep_record *rec,
				  uint64_t *addrs, unsigned int max)
{
	const struct fmt_trace *f = &ev->ustack;
	unsigned int esize, slots, n;
	const char *base;
	uint64_t va;

	slots = ustack_slots(ev, rec, &esize);
	base = (const char *)rec->data + f->caller->offset;
	for (n = 0; n < slots; n++) {
		va = array_elem(ev, base, n, esize);
		if (!va || (addrs && n >= max))
			break;
		if (addrs)
			addrs[n] = va;
	}
	return n;
}

/**
 * ustack_events_sample - is @rec a ustack:sample or ustack:sample_copy record?
 * @ev:		the events
 * @rec:	any record
 *
 * Returns 1 for a ustack:sample record, 2 for a ustack:sample_copy one
 * (with registers and a stack copy), whose format is the one we write
 * (decode either with ustack_sideband_decode_prev()), -1 for one whose
 * format is not, 0 for any other record.
 */
int ustack_events_sample(const struct ustack_events *ev, const struct tep_record *rec)
{
	const struct fmt_sample *fs;
	int type;

	if (ev->sample.id < 0 && ev->sample_copy.id < 0)
		return 0;
	type = rec_type(ev, rec);
	if (type == ev->sample.id)
		fs = &ev->sample;
	else if (type == ev->sample_copy.id)
		fs = &ev->sample_copy;
	else
		return 0;
	if (!fs->ok)
		return -1;
	return fs == &ev->sample_copy ? 2 : 1;
}

/**
 * ustack_events_print_text - the text of a ftrace:print record
 * @ev:		the events
 * @rec:	any record
 *
 * Returns NULL when @rec is not a ftrace:print record, or when its text has
 * no NUL inside the record (a damaged file).
 */
const char *ustack_events_print_text(const struct ustack_events *ev,
				     const struct tep_record *rec)
{
	const char *text;

	if (ev->print.id < 0 || rec_type(ev, rec) != ev->print.id)
		return NULL;
	if (ev->print.a->offset >= rec->size)
		return NULL;
	text = (const char *)rec->data + ev->print.a->offset;
	/* The kernel ends the text with a NUL; a record from a file may not */
	if (!memchr(text, '\0', rec->size - ev->print.a->offset))
		return NULL;
	return text;
}

/**
 * ustack_events_exec_pid - the task a sched:sched_process_exec record names
 * @ev:		the events
 * @rec:	any record
 *
 * Returns 0 when @rec is not such a record.
 */
int ustack_events_exec_pid(const struct ustack_events *ev, const struct tep_record *rec)
{
	if (ev->exec.id < 0 || rec_type(ev, rec) != ev->exec.id)
		return 0;
	return field_num(ev, rec, ev->exec.a, 0);
}

/**
 * ustack_events_newtask - the task a task:task_newtask record creates
 * @ev:		the events
 * @rec:	any record
 * @pid:	set to the new task
 * @thread:	set to true for a thread (CLONE_THREAD) of the creator's group
 *
 * Returns false when @rec is not such a record.
 */
bool ustack_events_newtask(const struct ustack_events *ev, const struct tep_record *rec,
			   int *pid, bool *thread)
{
	if (ev->newtask.id < 0 ||
	    rec_type(ev, rec) != ev->newtask.id)
		return false;
	*pid = field_num(ev, rec, ev->newtask.a, 0);
	*thread = field_num(ev, rec, ev->newtask.b, 0) & CLONE_THREAD;
	return true;
}

/* A char[16] name field, NUL-terminated into @comm */
static const char *field_comm(const struct ustack_events *ev, const struct tep_record *rec,
			      const struct tep_format_field *f, char *comm, size_t size)
{
	size_t n;

	if (!f || f->offset + f->size > rec->size || !size)
		return NULL;
	n = f->size < size - 1 ? f->size : size - 1;
	memcpy(comm, (const char *)rec->data + f->offset, n);
	comm[n] = '\0';
	comm[strnlen(comm, n)] = '\0';
	return comm;
}

/**
 * ustack_events_task_comm - the name a task event gives a task
 * @ev:		the events
 * @rec:	any record
 * @pid:	set to the task named: the new task of task:task_newtask
 *		(its parent's name), the renamed one of task:task_rename
 *		(exec, prctl(PR_SET_NAME), writes to /proc/<pid>/comm)
 * @comm:	where the name goes
 * @size:	room in @comm
 *
 * Returns @comm, or NULL when @rec is neither event.
 */
const char *ustack_events_task_comm(const struct ustack_events *ev, const struct tep_record *rec,
				    int *pid, char *comm, size_t size)
{
	int type = rec_type(ev, rec);
	const struct fmt_other *f;

	if (type < 0)
		return NULL;
	if (type == ev->newtask.id)
		f = &ev->newtask;
	else if (type == ev->rename.id)
		f = &ev->rename;
	else
		return NULL;
	*pid = f->a ? (int)field_num(ev, rec, f->a, 0) : ustack_events_pid(ev, rec);
	return field_comm(ev, rec, f->comm, comm, size);
}

/* A field's bytes inside the record; a dynamic array's and its text's too */
static bool field_fits(struct tep_handle *tep, const struct tep_format_field *f,
		       const struct tep_record *rec)
{
	const char *data = rec->data;
	unsigned long long loc, off, len;

	if (f->offset < 0 || f->size < 0 || (size_t)f->offset + f->size > (size_t)rec->size)
		return false;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return true;
	/* where libtraceevent finds the array: offset, and length above it */
	loc = tep_read_number(tep, data + f->offset, f->size);
	off = loc & 0xffff;
	len = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	if (off + len > (unsigned long long)rec->size)
		return false;
	/* a string is printed up to its NUL, which the kernel puts inside */
	return !(f->flags & TEP_FIELD_IS_STRING) || !len || memchr(data + off, '\0', len);
}

static bool fields_fit(struct tep_handle *tep, const struct tep_format_field *f,
		       const struct tep_record *rec)
{
	for (; f; f = f->next)
		if (!field_fits(tep, f, rec))
			return false;
	return true;
}

/**
 * ustack_events_record_fits - a record holds every field its format names
 * @tep:	the formats
 * @event:	the record's event, NULL when its type is unknown
 * @rec:	the record
 *
 * libtraceevent prints a record's fields where its format says they are,
 * and its dynamic arrays where the record says, without looking at the
 * record's size: a record of a damaged file may be shorter, or point past
 * its end. Returns true when every field (the common ones of the first
 * format for an unknown type) lies inside it, and every dynamic array
 * and string too.
 */
bool ustack_events_record_fits(struct tep_handle *tep, const struct tep_event *event,
			       const struct tep_record *rec)
{
	if (!event)
		event = tep_get_first_event(tep);
	if (!event)
		return false;
	return fields_fit(tep, event->format.common_fields, rec) &&
	       fields_fit(tep, event->format.fields, rec);
}

/**
 * ustack_events_sideband_text - the text of one of our side-band records
 * @ev:		the events
 * @rec:	any record
 *
 * Returns NULL unless @rec is a ftrace:print record holding a side-band
 * record (USTACK_SB_MARKER).
 */
const char *ustack_events_sideband_text(const struct ustack_events *ev,
					const struct tep_record *rec)
{
	const char *text = ustack_events_print_text(ev, rec);

	if (!text || strncmp(text, USTACK_SB_MARKER, strlen(USTACK_SB_MARKER)))
		return NULL;
	return text;
}

/* ------------------------------------------------------------------ */
/* The info marker                                                    */
/* ------------------------------------------------------------------ */

/**
 * ustack_events_info_text - what a capture writes into trace_marker
 * @buf:	where to
 * @size:	room in @buf
 * @deferred:	the capture uses deferred stacks (else the fallback)
 * @helpers:	USTACK_HELPER_* it enabled
 * @until_exec:	the command it launched, whose events before its exec are
 *		the tracer's (ustack_session_skip_until_exec()), or 0
 * @max_stack:	its --max-stack, which cuts the walk of the stack copies
 *		the file keeps (deferred stacks: report unwinds them), or 0
 *
 * Returns the length, as snprintf().
 */
int ustack_events_info_text(char *buf, size_t size, bool deferred, unsigned int helpers,
			    int until_exec, unsigned int max_stack)
{
	int n = snprintf(buf, size, USTACK_INFO_MARKER "path=%s helpers=%s%s%s until_exec=%d",
			 deferred ? "deferred" : "fallback",
			 helpers & USTACK_HELPER_EXEC ? "sched:sched_process_exec" : "none",
			 helpers & USTACK_HELPER_NEWTASK ? ",task:task_newtask" : "",
			 helpers & USTACK_HELPER_RENAME ? ",task:task_rename" : "",
			 until_exec);

	if (max_stack && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, " max_stack=%u", max_stack);
	return n;
}

/**
 * ustack_events_info_max_stack - the frame limit an info marker names
 * @text: a ftrace:print text
 *
 * Returns the --max-stack of the recording, 0 when it had none (or @text
 * is no info marker).
 */
unsigned int ustack_events_info_max_stack(const char *text)
{
	const char *s;

	if (strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER)))
		return 0;
	s = strstr(text, " max_stack=");
	return s ? strtoul(s + strlen(" max_stack="), NULL, 10) : 0;
}

/**
 * ustack_events_info_until_exec - the command an info marker names
 * @text: a ftrace:print text
 *
 * Returns its pid, 0 when there is none (or @text is no info marker).
 */
int ustack_events_info_until_exec(const char *text)
{
	const char *s;

	if (strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER)))
		return 0;
	s = strstr(text, " until_exec=");
	return s ? atoi(s + strlen(" until_exec=")) : 0;
}

/**
 * ustack_events_info_deferred - an info marker of a deferred-stack capture
 * @text: a ftrace:print text
 *
 * Such a capture writes no maps snapshots: nothing after its info marker
 * needs the report's first pass.
 */
bool ustack_events_info_deferred(const char *text)
{
	return !strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER)) &&
	       strstr(text, " path=deferred ");
}

/**
 * ustack_events_info_helpers - the helpers an info marker names
 * @text: a ftrace:print text
 *
 * Returns USTACK_HELPER_*, 0 when @text is no info marker.
 */
unsigned int ustack_events_info_helpers(const char *text)
{
	unsigned int helpers = 0;

	if (strncmp(text, USTACK_INFO_MARKER, strlen(USTACK_INFO_MARKER)))
		return 0;
	if (strstr(text, "sched:sched_process_exec"))
		helpers |= USTACK_HELPER_EXEC;
	if (strstr(text, "task:task_newtask"))
		helpers |= USTACK_HELPER_NEWTASK;
	if (strstr(text, "task:task_rename"))
		helpers |= USTACK_HELPER_RENAME;
	return helpers;
}
