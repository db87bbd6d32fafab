// SPDX-License-Identifier: LGPL-2.1
/*
 * pprof profiles: profile.proto (github.com/google/pprof, proto3),
 * encoded by hand and gzipped, as `go tool pprof`, Pyroscope and Parca
 * read them.
 *
 * One sample type per traced event ("system:event", unit count), after
 * a first one, "events", that counts them all when there are several: the
 * default, so that `go tool pprof -top` shows every sample, not the
 * largest event's. One sample per distinct stack and task (label "comm"),
 * labelled with its event ("event": -tagfocus=event=NAME picks one), its
 * values the count in its event's column and the total's. Frames are
 * locations: a user frame is a file
 * offset in a mapping that names the file and its build id, with its
 * lines (inlined calls first, as profile.proto orders them) when we
 * symbolized it, and one named FILE+0xOFFSET when we could not (its
 * mapping then says it has no functions, so that a client holding the
 * file or its debug info symbolizes it). Kernel frames live in a [kernel.kallsyms]
 * mapping at their addresses.
 *
 * The kernel reports file offsets, not addresses: each file gets a range
 * of its own, memory_start with file_offset 0, so that address -
 * memory_start + file_offset, the rule pprof symbolizes by, is the file
 * offset of the frame.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "ustack-array.h"
#include "ustack-render-int.h"
#include "ustack-profile-int.h"
#include "ustack-text.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,

	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,

	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,

	LABEL_KEY = 1,
	LABEL_STR = 2,

	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,

	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,

	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,

	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

#define WIRE_VARINT	0
#define WIRE_LEN	2

#define PAGE		4096ULL
#define USER_BASE	0x10000ULL	/* where the first file's range starts */
#define KERNEL_MAP_ID	1

/* ------------------------------------------------------------------ */
/* Protocol buffers: varints and length-delimited fields              */
/* ------------------------------------------------------------------ */

struct pbuf {
	uint8_t		*d;
	size_t		len, alloc;
	bool		failed;
};

static void pb_bytes(struct pbuf *b, const void *data, size_t len)
{
	/* an empty message has no bytes, maybe not even a buffer */
	if (!len)
		return;
	if (b->failed || ustack_array_grow((void **)&b->d, &b->alloc, b->len + len, 1)) {
		b->failed = true;
		return;
	}
	memcpy(b->d + b->len, data, len);
	b->len += len;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pb_bytes(b, tmp, n);
}

static void pb_key(struct pbuf *b, int field, int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zeros out */
static void pb_uint(struct pbuf *b, int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_len(struct pbuf *b, int field, const void *data, size_t len)
{
	pb_key(b, field, WIRE_LEN);
	pb_varint(b, len);
	pb_bytes(b, data, len);
}

/* Append @msg as field @field of @b, and empty @msg for the next one */
static void pb_msg(struct pbuf *b, int field, struct pbuf *msg)
{
	if (msg->failed)
		b->failed = true;
	pb_len(b, field, msg->d, msg->len);
	msg->len = 0;
	msg->failed = false;
}

/* A packed repeated varint field */
static void pb_packed(struct pbuf *b, int field, const uint64_t *v, size_t n,
		      struct pbuf *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(b, field, tmp);
}

/* ------------------------------------------------------------------ */
/* The profile                                                        */
/* ------------------------------------------------------------------ */

/*
 * pprof's string table: the profile's strings (same ids: 0 is ""), then
 * the few of our own.
 */
struct pp {
	const struct ustack_profile	*p;
	struct pbuf			out;
	struct pbuf			msg;
	struct pbuf			sub;
	struct pbuf			tmp;
	char				**extra;
	size_t				nr_extra, alloc_extra;
	uint64_t			*base;	/* memory_start of each map */
	uint64_t			prog_base;	/* the command's file, no frames */
	uint64_t			kmin, kmax;
	bool				kernel, kernel_unnamed;
	uint64_t			*values;
};

static uint64_t pp_str(struct pp *pp, const char *s)
{
	size_t i;

	for (i = 0; i < pp->nr_extra; i++)
		if (!strcmp(pp->extra[i], s))
			return pp->p->nr_str + i;
	if (ustack_array_grow((void **)&pp->extra, &pp->alloc_extra, i + 1,
			      sizeof(*pp->extra))) {
		pp->out.failed = true;
		return 0;
	}
	pp->extra[i] = strdup(s);
	if (!pp->extra[i]) {
		pp->out.failed = true;
		return 0;
	}
	pp->nr_extra++;
	return pp->p->nr_str + i;
}

static void put_value_type(struct pp *pp, int field, const char *type, const char *unit)
{
	pb_uint(&pp->msg, VALUE_TYPE_TYPE, pp_str(pp, type));
	pb_uint(&pp->msg, VALUE_TYPE_UNIT, pp_str(pp, unit));
	pb_msg(&pp->out, field, &pp->msg);
}

static uint64_t loc_address(const struct pp *pp, const struct ploc *l)
{
	if (l->kind == PLOC_PSEUDO)
		return 0;
	return l->map >= 0 ? pp->base[l->map] + l->addr : l->addr;
}

static uint64_t loc_mapping(const struct pp *pp, const struct ploc *l)
{
	if (l->map >= 0)
		return l->map + 2;
	return l->kind == RF_KERNEL ? KERNEL_MAP_ID : 0;
}

/*
 * The lines a location shows pprof: none for frames in no file. A file's
 * frame without its symbol is named as every output names it
 * (FILE+0xOFFSET); its mapping says it has no functions, so that a
 * client holding the file or its debug info symbolizes it anew.
 */
static bool loc_named(const struct ustack_profile *p, const struct ploc *l)
{
	return l->nr_lines && pframe_identified(p->frames[p->lines[l->first_line].frame]);
}

/* Where each file's range starts; the kernel's span */
static int layout(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	uint64_t next = USER_BASE;
	const struct ploc *l;
	size_t i;

	pp->base = calloc(p->nr_maps + 1, sizeof(*pp->base));
	if (!pp->base)
		return -1;
	for (i = 0; i < p->nr_maps; i++) {
		pp->base[i] = next;
		next += (p->maps[i]->max_off / PAGE + 2) * PAGE;
	}
	pp->prog_base = next;
	for (i = 0; i < p->nr_locs; i++) {
		l = p->locs[i];
		if (l->kind != RF_KERNEL)
			continue;
		if (!pp->kernel || l->addr < pp->kmin)
			pp->kmin = l->addr;
		if (!pp->kernel || l->addr > pp->kmax)
			pp->kmax = l->addr;
		if (!loc_named(p, l))
			pp->kernel_unnamed = true;
		pp->kernel = true;
	}
	return 0;
}

/* The column of the count of all events, or -1 when there is one event */
static int total_column(const struct ustack_profile *p)
{
	return p->nr_events > 1 ? 0 : -1;
}

/* The column of event @ev */
static size_t event_column(const struct ustack_profile *p, uint32_t ev)
{
	return ev + (total_column(p) + 1);
}

static size_t nr_columns(const struct ustack_profile *p)
{
	return p->nr_events + (total_column(p) + 1);
}

static void put_sample_types(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	size_t i;

	if (total_column(p) == 0)
		put_value_type(pp, PROFILE_SAMPLE_TYPE, "events", "count");
	for (i = 0; i < p->nr_events; i++)
		put_value_type(pp, PROFILE_SAMPLE_TYPE, pstr(p, p->events[i].name), "count");
}

static void put_samples(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	const struct pstack *st;
	uint64_t *ids = NULL;
	size_t alloc = 0, i, j;

	for (i = 0; i < p->nr_stacks; i++) {
		st = p->stacks[i];
		if (ustack_array_grow((void **)&ids, &alloc, st->nr_locs + 1, sizeof(*ids))) {
			pp->out.failed = true;
			break;
		}
		for (j = 0; j < st->nr_locs; j++)
			ids[j] = p->stack_locs[st->first_loc + j] + 1;
		pb_packed(&pp->msg, SAMPLE_LOCATION_ID, ids, st->nr_locs, &pp->tmp);
		memset(pp->values, 0, nr_columns(p) * sizeof(*pp->values));
		pp->values[event_column(p, st->event)] = st->count;
		if (total_column(p) >= 0)
			pp->values[total_column(p)] = st->count;
		pb_packed(&pp->msg, SAMPLE_VALUE, pp->values, nr_columns(p), &pp->tmp);
		pb_uint(&pp->sub, LABEL_KEY, pp_str(pp, "comm"));
		pb_uint(&pp->sub, LABEL_STR, st->comm);
		pb_msg(&pp->msg, SAMPLE_LABEL, &pp->sub);
		pb_uint(&pp->sub, LABEL_KEY, pp_str(pp, "event"));
		pb_uint(&pp->sub, LABEL_STR, p->events[st->event].name);
		pb_msg(&pp->msg, SAMPLE_LABEL, &pp->sub);
		pb_msg(&pp->out, PROFILE_SAMPLE, &pp->msg);
	}
	free(ids);
}

static void build_id_hex(const struct pmap *m, char *buf)
{
	uint32_t i;

	for (i = 0; i < m->build_id_len; i++)
		sprintf(buf + 2 * i, "%02x", m->build_id[i]);
	buf[2 * i] = '\0';
}

static void put_kernel_mapping(struct pp *pp)
{
	pb_uint(&pp->msg, MAPPING_ID, KERNEL_MAP_ID);
	pb_uint(&pp->msg, MAPPING_MEMORY_START, pp->kmin & ~(PAGE - 1));
	pb_uint(&pp->msg, MAPPING_MEMORY_LIMIT, pp->kmax + 1);
	pb_uint(&pp->msg, MAPPING_FILENAME, pp_str(pp, "[kernel.kallsyms]"));
	pb_uint(&pp->msg, MAPPING_HAS_FUNCTIONS, !pp->kernel_unnamed);
	pb_msg(&pp->out, PROFILE_MAPPING, &pp->msg);
}

/* The file of map @i, or with @i past the maps the command's (no frames) */
static void put_file_mapping(struct pp *pp, size_t i)
{
	const struct pmap *m = i < pp->p->nr_maps ? pp->p->maps[i] : pp->p->program;
	uint64_t base = i < pp->p->nr_maps ? pp->base[i] : pp->prog_base;
	char hex[2 * USTACK_BUILD_ID_MAX + 1];

	build_id_hex(m, hex);
	pb_uint(&pp->msg, MAPPING_ID, i + 2);
	pb_uint(&pp->msg, MAPPING_MEMORY_START, base);
	pb_uint(&pp->msg, MAPPING_MEMORY_LIMIT, base + (m->max_off / PAGE + 1) * PAGE);
	pb_uint(&pp->msg, MAPPING_FILE_OFFSET, 0);
	pb_uint(&pp->msg, MAPPING_FILENAME, m->path);
	pb_uint(&pp->msg, MAPPING_BUILD_ID, pp_str(pp, hex));
	/* a client symbolizes the files where we left frames unnamed */
	pb_uint(&pp->msg, MAPPING_HAS_FUNCTIONS, m->named && !m->unnamed);
	pb_uint(&pp->msg, MAPPING_HAS_FILENAMES, m->lines && !m->unnamed);
	pb_uint(&pp->msg, MAPPING_HAS_LINE_NUMBERS, m->lines && !m->unnamed);
	pb_uint(&pp->msg, MAPPING_HAS_INLINE_FRAMES, m->inlines && !m->unnamed);
	pb_msg(&pp->out, PROFILE_MAPPING, &pp->msg);
}

/*
 * pprof takes the first mapping for the main binary (its "File:"
 * header, the binary it symbolizes first): the traced program's file
 * comes first (ustack_profile_main_map()), the kernel's last. A command
 * whose frames no stack reached (stacks cut in a library) still names
 * its file there, in a mapping of its own without locations.
 */
static void put_mappings(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	int main_map = ustack_profile_main_map(p);
	size_t i;

	if (main_map >= 0)
		put_file_mapping(pp, main_map);
	for (i = 0; i < p->nr_maps; i++)
		if ((int)i != main_map)
			put_file_mapping(pp, i);
	if (pp->kernel)
		put_kernel_mapping(pp);
}

static void put_locations(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	const struct pline *ln;
	const struct ploc *l;
	size_t i, j;

	for (i = 0; i < p->nr_locs; i++) {
		l = p->locs[i];
		pb_uint(&pp->msg, LOCATION_ID, i + 1);
		pb_uint(&pp->msg, LOCATION_MAPPING_ID, loc_mapping(pp, l));
		pb_uint(&pp->msg, LOCATION_ADDRESS, loc_address(pp, l));
		for (j = 0; loc_named(p, l) && j < l->nr_lines; j++) {
			ln = &p->lines[l->first_line + j];
			pb_uint(&pp->sub, LINE_FUNCTION_ID, ln->frame + 1);
			pb_uint(&pp->sub, LINE_LINE, ln->line > 0 ? ln->line : 0);
			pb_msg(&pp->msg, LOCATION_LINE, &pp->sub);
		}
		pb_msg(&pp->out, PROFILE_LOCATION, &pp->msg);
	}
}

/* A function per named frame (the others are never a line's) */
static void put_functions(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	const struct pframe *f;
	size_t i;

	for (i = 0; i < p->nr_frames; i++) {
		f = p->frames[i];
		if (!pframe_identified(f))
			continue;
		pb_uint(&pp->msg, FUNCTION_ID, i + 1);
		pb_uint(&pp->msg, FUNCTION_NAME, f->name);
		pb_uint(&pp->msg, FUNCTION_SYSTEM_NAME, f->name);
		pb_uint(&pp->msg, FUNCTION_FILENAME, f->file);
		if (f->start_line > 0)
			pb_uint(&pp->msg, FUNCTION_START_LINE, f->start_line);
		pb_msg(&pp->out, PROFILE_FUNCTION, &pp->msg);
	}
}

static void put_header_fields(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	char buf[512];
	int len;

	put_value_type(pp, PROFILE_PERIOD_TYPE, "event", "count");
	pb_uint(&pp->out, PROFILE_PERIOD, 1);
	if (p->samples)
		pb_uint(&pp->out, PROFILE_DURATION_NANOS, p->last_ts - p->first_ts);
	len = snprintf(buf, sizeof(buf), "trace-cmd ustack: %s", p->command ? p->command : "");
	/* a long command line is cut at a character */
	if (len >= (int)sizeof(buf))
		buf[ustack_text_cut(buf, sizeof(buf) - 1)] = '\0';
	pb_uint(&pp->out, PROFILE_COMMENT, pp_str(pp, buf));
	if (p->have_stats) {
		snprintf(buf, sizeof(buf), "stacks lost: %" PRIu64 "%s%s", p->stats.lost,
			 ustack_profile_sync_note(&p->stats) ? "; " : "",
			 ustack_profile_sync_note(&p->stats) ? ustack_profile_sync_note(&p->stats) : "");
		pb_uint(&pp->out, PROFILE_COMMENT, pp_str(pp, buf));
	}
	if (total_column(p) == 0)
		pb_uint(&pp->out, PROFILE_DEFAULT_SAMPLE_TYPE, pp_str(pp, "events"));
	else if (p->nr_events)
		pb_uint(&pp->out, PROFILE_DEFAULT_SAMPLE_TYPE, p->events[0].name);
}

/*
 * A string of the table: protobuf strings are valid UTF-8, and pprof
 * prints them on terminals (ustack-text.h: U+FFFD for what is neither)
 */
static void put_string(struct pp *pp, const char *s)
{
	char *t;

	if (ustack_text_plain(s, USTACK_TEXT_UTF8)) {
		pb_len(&pp->out, PROFILE_STRING_TABLE, s, strlen(s));
		return;
	}
	t = ustack_text_dup(s, USTACK_TEXT_UTF8);
	if (!t) {
		pp->out.failed = true;
		return;
	}
	pb_len(&pp->out, PROFILE_STRING_TABLE, t, strlen(t));
	free(t);
}

static void put_strings(struct pp *pp)
{
	const struct ustack_profile *p = pp->p;
	size_t i;

	for (i = 0; i < p->nr_str; i++)
		put_string(pp, p->str[i]);
	for (i = 0; i < pp->nr_extra; i++)
		put_string(pp, pp->extra[i]);
}

static int gzip_to(const char *path, const struct pbuf *b)
{
	gzFile gz = gzopen(path, "wb");
	size_t off = 0;
	int n;

	if (!gz)
		return -1;
	while (off < b->len) {
		n = gzwrite(gz, b->d + off, b->len - off > (1U << 30) ? 1U << 30 : b->len - off);
		if (n <= 0) {
			gzclose(gz);
			errno = EIO;
			return -1;
		}
		off += n;
	}
	if (gzclose(gz) != Z_OK) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static void pp_free(struct pp *pp)
{
	size_t i;

	for (i = 0; i < pp->nr_extra; i++)
		free(pp->extra[i]);
	free(pp->extra);
	free(pp->out.d);
	free(pp->msg.d);
	free(pp->sub.d);
	free(pp->tmp.d);
	free(pp->base);
	free(pp->values);
}

/**
 * ustack_pprof_write - write the profile as a gzipped profile.proto
 * @p:		the profile
 * @path:	the file
 *
 * Returns 0, or -1 with errno set.
 */
int ustack_pprof_write(const struct ustack_profile *p, const char *path)
{
	struct pp pp = { .p = p };
	int ret = -1;

	errno = ENOMEM;
	pp.values = calloc(nr_columns(p) + 1, sizeof(*pp.values));
	if (p->failed || !pp.values || layout(&pp))
		goto out;
	put_sample_types(&pp);
	put_samples(&pp);
	put_mappings(&pp);
	put_locations(&pp);
	put_functions(&pp);
	put_header_fields(&pp);
	/* last: the fields above add strings of their own */
	put_strings(&pp);
	if (pp.out.failed || pp.msg.failed || pp.sub.failed || pp.tmp.failed)
		goto out;
	ret = gzip_to(path, &pp.out);
out:
	pp_free(&pp);
	return ret;
}
