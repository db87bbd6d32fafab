// SPDX-License-Identifier: LGPL-2.1
/*
 * The side-band file's writer with stack copies (see ustack-tracedat-sbtrim.h).
 *
 * Unwinding a copy costs 6-35 us (CFI, files opened once per process);
 * the reader copies a sample in about 1 us. Done by the reader, the
 * unwind made its queue fill on a burst and the rings overflow
 * (bench/perfsrc/NOTES.md, issue 47). So the reader only puts each
 * record into a window of records not yet written, in the order the
 * merge released them, which is the order they are written in: nothing
 * here reorders (a stack copy stays in its drained buffer, held; the
 * others are copied). The worker does not unwind a copy that repeats its
 * thread's last one (memo_match()). A copy also goes to the worker's queue while fewer than
 * a bound wait there; the side-band records that change a process's
 * mappings go to it too, in the same order, so that its own history of
 * the mappings is at each copy what it was then.
 *
 * The window is written from its head: a record that waits for nothing,
 * a copy the worker trimmed, and, once the window is over its size, the
 * head whatever it is: a copy the worker has not finished is written
 * whole then, with every copy it has not started. The reader never waits
 * for the worker. The worker never
 * writes; it only fills a copy's map of the words its unwind read, and
 * says it is done. A copy given up while the worker still reads it is
 * left to the worker, which frees it (each item counts its owners).
 *
 * At the end the worker finishes what it was given before the rest of
 * the window is written: the recording is over then, no ring can fill.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "ustack-array.h"
#include "ustack-map-history.h"
#include "ustack-sideband.h"
#include "ustack-tracedat-sbfile.h"
#include "ustack-tracedat-sbtrim.h"
#include "ustack-unwind.h"
#include "ustack-unwind-sample.h"
#include "ustack-word-map.h"

/*
 * The window's size: past it the head is written whatever it is. A copy
 * is some 8.5 KiB: this holds about 4,000, a worker's queue (a drain's
 * batch of copies, which come at once) and the records after them.
 */
#define WINDOW_BYTES	(32UL << 20)

/*
 * The worker's memory of each thread's last copy, by tid (a slot a tid,
 * the last thread to land in a slot keeps it): its registers, and the
 * words its unwind read with their values. The walk is a function of the
 * registers it uses, of the words it reads and of the mappings: a copy
 * whose registers are the same and whose words at those places hold the
 * same values reads the same words again, and gets the same map without
 * being unwound, while no side-band record (a mapping, an exec, a fork)
 * came in between. A loop's samples at one call site mostly are such
 * repeats. Which registers count: see memo_key().
 */
#define MEMO_SLOTS	64

struct memo {
	int		tid;		/* 0: empty */
	int		pid;
	unsigned int	gen;		/* the history's generation then */
	uint32_t	regs_abi;
	uint64_t	regs_mask;
	uint32_t	stack_size;
	uint32_t	umax;
	size_t		map_bytes;
	/* positions in the sample's array of registers (regs_mask's order) */
	uint64_t	key_all;	/* every register */
	uint64_t	key_syscall;	/* SYSCALL_KEY's */
	bool		syscall_sign;	/* SYSCALL_SIGN's are there: */
	int		pos[USTACK_REG_NR];
	size_t		nr_words;
	size_t		alloc;		/* bytes of @buf */
	/* registers, the map (8-byte padded), the words read: offsets, values */
	char		*buf;
	uint64_t	*regs;
	uint8_t		*map;
	uint32_t	*word_idx;
	uint64_t	*word_val;
};

/* A copy's state, once given to the worker */
enum {
	COPY_QUEUED,
	COPY_RUNNING,		/* the worker unwinds it */
	COPY_DONE,		/* @used and @umax are the worker's answer */
	COPY_GIVEN_UP,		/* written whole: the worker skips it */
};

/*
 * A record of the window, the map of used words after it (@data), then
 * its arrays copied: chain, registers, stack copy, payload, the name. A
 * copy from a drained buffer that outlives the call (@hold) is not
 * copied: the item keeps the buffer instead, and its arrays stay there.
 */
struct trim_item {
	struct trim_item	*wnext;		/* the window */
	struct trim_item	*qnext;		/* the worker's queue */
	struct ustack_sb_rec	rec;
	size_t			size;
	bool			worker;		/* in the worker's queue */
	int			state;		/* atomic: enum above, copies */
	int			refs;		/* atomic: the window, the worker */
	uint32_t		umax;		/* the worker's: frame limit reached */
	bool			repeat;		/* the worker's: its thread's last walk */
	uint8_t			*used;		/* the worker's: words read */
	struct ustack_sb_hold	*hold;		/* where the arrays are, else @data */
	uint64_t		data[];
};

struct ustack_tracedat_sbtrim {
	struct ustack_tracedat_sbfile	*f;
	unsigned int			bound;
	/* the window: the reader's alone */
	struct trim_item		*whead;
	struct trim_item		*wtail;
	size_t				wbytes;
	struct ustack_sbtrim_stats	stats;
	/* the worker's queue */
	pthread_mutex_t			lock;
	pthread_cond_t			cond;
	struct trim_item		*qhead;
	struct trim_item		*qtail;
	bool				waiting;
	bool				closing;
	unsigned int			pending;	/* atomic: copies queued, not passed */
	pthread_t			thread;
	bool				started;
	/* the worker's alone */
	struct ustack_unwinder		*u;
	struct ustack_map_history	*h;
	unsigned int			max_frames;
	struct ustack_uframe		*frames;
	struct memo			memo[MEMO_SLOTS];
	unsigned int			gen;		/* history records seen */
	unsigned long long		cpu_ns;		/* read once joined */
};

static bool is_copy(const struct ustack_sb_rec *rec)
{
	return rec->kind == USTACK_SB_SAMPLE && rec->regs && rec->stack && rec->stack_size;
}

/* What the worker's history needs: the records that change mappings */
static bool for_history(const struct ustack_sb_rec *rec)
{
	return rec->kind == USTACK_SB_MMAP || rec->kind == USTACK_SB_COMM ||
	       rec->kind == USTACK_SB_FORK;
}

static void item_put(struct trim_item *it)
{
	if (__atomic_sub_fetch(&it->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (it->hold)
		ustack_sb_hold_put(it->hold);
	free(it);
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~7UL;
}

static char *put_bytes(char **p, const void *from, size_t len)
{
	char *at = *p;

	if (len)
		memcpy(at, from, len);
	*p += pad8(len);
	return at;
}

/*
 * @rec for the window, or NULL when out of memory: a copy that comes with
 * its drained buffer keeps that, the copy is not copied again (8 KiB a
 * sample, on the reader's path); another has its arrays and name copied
 */
static struct trim_item *item_copy(const struct ustack_sb_rec *rec)
{
	size_t chain = (size_t)rec->nr_chain * 8, regs = 0, stack = 0, used = 0, name = 0;
	struct trim_item *it;
	size_t size, arrays;
	bool held;
	char *p;

	if (rec->regs)
		regs = (size_t)__builtin_popcountll(rec->regs_mask) * 8;
	if (is_copy(rec)) {
		stack = rec->stack_size;
		used = ustack_unwind_sample_map_bytes(stack);
	}
	if (rec->name)
		name = strlen(rec->name) + 1;
	arrays = pad8(chain) + regs + pad8(stack) + pad8(rec->raw_size) + name;
	held = rec->hold && stack;
	size = sizeof(*it) + pad8(used) + (held ? 0 : arrays);
	it = malloc(size);
	if (!it)
		return NULL;
	memset(it, 0, sizeof(*it));
	it->rec = *rec;
	it->rec.stack_valid = NULL;
	/* what it keeps, held or copied: the window's size counts it */
	it->size = sizeof(*it) + pad8(used) + arrays;
	p = (char *)it->data;
	if (used) {
		it->used = (uint8_t *)p;
		memset(p, 0, used);
		p += pad8(used);
	}
	if (held) {
		it->hold = rec->hold;
		ustack_sb_hold_get(it->hold);
		return it;
	}
	it->rec.hold = NULL;
	it->rec.chain = (const uint64_t *)put_bytes(&p, rec->chain, chain);
	it->rec.regs = rec->regs ? (const uint64_t *)put_bytes(&p, rec->regs, regs) : NULL;
	it->rec.stack = stack ? put_bytes(&p, rec->stack, stack) : NULL;
	it->rec.raw = put_bytes(&p, rec->raw, rec->raw_size);
	if (name)
		it->rec.name = put_bytes(&p, rec->name, name);
	return it;
}

/* ------------------------------------------------------------------ */
/* The worker                                                         */
/* ------------------------------------------------------------------ */

/* The bytes of word @i of a copy of @size bytes (the last may be short) */
static size_t word_len(size_t i, size_t size)
{
	return size - i * 8 < 8 ? size - i * 8 : 8;
}

#define REG(r)	(1ULL << USTACK_REG_##r)
/* What a walk from a 64-bit system call can use: see memo_key() */
#define SYSCALL_KEY	(REG(BX) | REG(BP) | REG(SP) | REG(IP) | REG(CS) | REG(SS) | \
			 REG(R12) | REG(R13) | REG(R14) | REG(R15))
#define SYSCALL_SIGN	(REG(CX) | REG(IP) | REG(R11) | REG(FLAGS) | REG(CS))
/* x86-64 Linux's code segment selector of 32-bit user code (__USER32_CS) */
#define USER32_CS	0x23

/*
 * The registers @rec must share with @m's copy, as positions in its
 * array. A 64-bit task stopped at its `syscall` instruction has rcx = the
 * return address and r11 = the flags (the instruction put them there), a
 * pair no other stop has by chance. At that pc the CFI cannot use rax,
 * rcx or r11 (the instruction changed them), nor, in compiled code, the
 * argument registers (rdi, rsi, rdx, r10, r8, r9) nor the flags: what
 * varies from one call to the next there (a buffer, a length, a loop's
 * arithmetic) does not make another walk. Hand-written code could still
 * keep a return address in one of them (glibc's vfork() keeps it in
 * rdi): a map taken for such a copy lacks a word its walk reads, and
 * report's unwind of it stops there and says so, the stack cut, never
 * another. Anywhere else every register counts.
 */
static uint64_t memo_key(const struct memo *m, const struct ustack_sb_rec *rec)
{
	const uint64_t *r = rec->regs;

	if (!m->syscall_sign || rec->regs_abi != PERF_SAMPLE_REGS_ABI_64 ||
	    (r[m->pos[USTACK_REG_CS]] & 0xffff) == USER32_CS ||
	    r[m->pos[USTACK_REG_CX]] != r[m->pos[USTACK_REG_IP]] ||
	    r[m->pos[USTACK_REG_R11]] != r[m->pos[USTACK_REG_FLAGS]])
		return m->key_all;
	return m->key_syscall;
}

/* Does @rec read as @m's copy did: same registers, same values where it read? */
static bool memo_match(const struct memo *m, unsigned int gen, const struct ustack_sb_rec *rec)
{
	const char *stack = rec->stack;
	uint64_t key, v;
	size_t k, i;

	if (!m->tid || m->tid != rec->tid || m->pid != rec->pid || m->gen != gen ||
	    m->regs_mask != rec->regs_mask || m->regs_abi != rec->regs_abi ||
	    m->stack_size != rec->stack_size)
		return false;
	for (key = memo_key(m, rec); key; key &= key - 1)
		if (rec->regs[__builtin_ctzll(key)] != m->regs[__builtin_ctzll(key)])
			return false;
	for (k = 0; k < m->nr_words; k++) {
		i = m->word_idx[k];
		v = 0;
		/* a whole word but for the last of a copy whose size is not a multiple of 8 */
		if (i < rec->stack_size / 8)
			memcpy(&v, stack + i * 8, 8);
		else
			memcpy(&v, stack + i * 8, word_len(i, rec->stack_size));
		if (v != m->word_val[k])
			return false;
	}
	return true;
}

/* Where each register is in a sample's array of @mask's registers, and the keys */
static void memo_regs(struct memo *m, uint64_t mask)
{
	int bit, n = 0;

	m->key_all = m->key_syscall = 0;
	for (bit = 0; bit < USTACK_REG_NR; bit++) {
		m->pos[bit] = -1;
		if (!(mask & (1ULL << bit)))
			continue;
		m->pos[bit] = n;
		m->key_all |= 1ULL << n;
		if (SYSCALL_KEY & (1ULL << bit))
			m->key_syscall |= 1ULL << n;
		n++;
	}
	m->syscall_sign = (mask & SYSCALL_SIGN) == SYSCALL_SIGN;
}

/* @it's walk becomes its thread's last; nothing is kept when out of memory */
static void memo_keep(struct memo *m, unsigned int gen, const struct trim_item *it)
{
	const struct ustack_sb_rec *rec = &it->rec;
	size_t nr_regs = __builtin_popcountll(rec->regs_mask), i, k, nr_words, size;
	size_t map_bytes = ustack_unwind_sample_map_bytes(rec->stack_size);

	m->tid = 0;
	/* registers the unwinder does not know of: not worth a memory */
	if (rec->regs_mask & ~((1ULL << USTACK_REG_NR) - 1))
		return;
	/* every bit of the map's bytes: a copy's short last word is one the unwind reads */
	nr_words = ustack_word_map_count(it->used, map_bytes * 8);
	size = nr_regs * 8 + pad8(map_bytes) + pad8(nr_words * 4) + nr_words * 8;
	if (size > m->alloc) {
		free(m->buf);
		m->alloc = 0;
		m->buf = malloc(size);
		if (!m->buf)
			return;
		m->alloc = size;
	}
	m->regs = (uint64_t *)m->buf;
	m->map = (uint8_t *)(m->regs + nr_regs);
	m->word_idx = (uint32_t *)(m->map + pad8(map_bytes));
	m->word_val = (uint64_t *)((char *)m->word_idx + pad8(nr_words * 4));
	memcpy(m->regs, rec->regs, nr_regs * 8);
	memcpy(m->map, it->used, map_bytes);
	k = 0;
	ustack_word_map_for_each(i, it->used, map_bytes * 8) {
		m->word_idx[k] = i;
		m->word_val[k] = 0;
		memcpy(&m->word_val[k], (const char *)rec->stack + i * 8,
		       word_len(i, rec->stack_size));
		k++;
	}
	memo_regs(m, rec->regs_mask);
	m->nr_words = nr_words;
	m->tid = rec->tid;
	m->pid = rec->pid;
	m->gen = gen;
	m->regs_abi = rec->regs_abi;
	m->regs_mask = rec->regs_mask;
	m->stack_size = rec->stack_size;
	m->umax = it->umax;
	m->map_bytes = map_bytes;
}

/*
 * A copy unwound: the words it read into @it->used, the limit if reached;
 * a repeat of its thread's last copy takes that one's
 */
static void trim(struct ustack_tracedat_sbtrim *t, struct trim_item *it)
{
	struct memo *m = &t->memo[(unsigned int)it->rec.tid % MEMO_SLOTS];
	struct ustack_unwind_result res;

	if (memo_match(m, t->gen, &it->rec)) {
		memcpy(it->used, m->map, m->map_bytes);
		it->umax = m->umax;
		it->repeat = true;
		return;
	}
	ustack_unwind_sample(t->u, t->h, &it->rec, it->rec.pid, t->frames, t->max_frames, &res,
			     it->used);
	it->umax = res.err == USTACK_UNWIND_E_MAX_FRAMES ? t->max_frames : 0;
	memo_keep(m, t->gen, it);
}

static void work(struct ustack_tracedat_sbtrim *t, struct trim_item *it)
{
	int queued = COPY_QUEUED;

	if (it->rec.kind != USTACK_SB_SAMPLE) {
		ustack_map_history_add(t->h, &it->rec);
		/* the mappings may have changed: no walk before is repeated */
		t->gen++;
		/* a new program: the unwinder's files of the old one are no use */
		if (it->rec.kind == USTACK_SB_COMM && it->rec.exec)
			ustack_unwinder_forget(t->u, it->rec.pid);
		return;
	}
	if (__atomic_compare_exchange_n(&it->state, &queued, COPY_RUNNING, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		trim(t, it);
		__atomic_store_n(&it->state, COPY_DONE, __ATOMIC_RELEASE);
	}
	__atomic_sub_fetch(&t->pending, 1, __ATOMIC_RELEASE);
}

static unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Everything queued, in order, until the reader says it is over */
static void *worker(void *arg)
{
	struct ustack_tracedat_sbtrim *t = arg;
	struct trim_item *it, *next;
	bool closing;

	for (;;) {
		pthread_mutex_lock(&t->lock);
		while (!t->qhead && !t->closing) {
			t->waiting = true;
			pthread_cond_wait(&t->cond, &t->lock);
		}
		t->waiting = false;
		it = t->qhead;
		closing = t->closing;
		t->qhead = t->qtail = NULL;
		pthread_mutex_unlock(&t->lock);
		if (!it && closing)
			break;
		for (; it; it = next) {
			next = it->qnext;
			work(t, it);
			item_put(it);
		}
	}
	/* what the unwinding cost, off the reader's path (bench/perfsrc) */
	t->cpu_ns = thread_cpu_ns();
	return NULL;
}

static void queue(struct ustack_tracedat_sbtrim *t, struct trim_item *it)
{
	bool wake;

	__atomic_add_fetch(&it->refs, 1, __ATOMIC_RELAXED);
	it->worker = true;
	pthread_mutex_lock(&t->lock);
	if (t->qtail)
		t->qtail->qnext = it;
	else
		t->qhead = it;
	t->qtail = it;
	wake = t->waiting;
	t->waiting = false;
	pthread_mutex_unlock(&t->lock);
	if (wake)
		pthread_cond_signal(&t->cond);
}

/* ------------------------------------------------------------------ */
/* The window                                                         */
/* ------------------------------------------------------------------ */

/* The head can be written now: it waits for no worker */
static bool ready(const struct trim_item *it)
{
	int state;

	if (!it->worker || it->rec.kind != USTACK_SB_SAMPLE)
		return true;
	state = __atomic_load_n(&it->state, __ATOMIC_ACQUIRE);
	return state == COPY_DONE || state == COPY_GIVEN_UP;
}

/* Not for the worker any more, unless it has started on it */
static void give_up(struct trim_item *it)
{
	int queued = COPY_QUEUED;

	if (it->worker && it->rec.kind == USTACK_SB_SAMPLE)
		__atomic_compare_exchange_n(&it->state, &queued, COPY_GIVEN_UP, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/*
 * The window is full and its head not trimmed: the worker is behind.
 * Every copy it has not started on goes whole, not only the head: one at
 * a time, each would be the next the worker starts on and the next the
 * window gives up, its unwind lost. The worker then skips them and
 * starts on the copies that come after, with the window's room before
 * them.
 */
static void give_up_all(struct ustack_tracedat_sbtrim *t)
{
	struct trim_item *it;

	for (it = t->whead; it; it = it->wnext)
		give_up(it);
}

/*
 * A copy the worker trimmed keeps the words its unwind read; one it did
 * not, given up here, goes whole (the worker may still be reading it:
 * nothing the worker writes is read then)
 */
static int write_item(struct ustack_tracedat_sbtrim *t, struct trim_item *it)
{
	struct ustack_sb_rec rec = it->rec;

	if (is_copy(&rec) && it->worker &&
	    (__atomic_load_n(&it->state, __ATOMIC_ACQUIRE) == COPY_DONE)) {
		rec.stack_valid = it->used;
		rec.unwind_max = it->umax;
		rec.cut |= it->umax != 0;
		t->stats.trimmed++;
		t->stats.repeated += it->repeat;
		t->stats.truncated += it->umax != 0;
	} else if (is_copy(&rec)) {
		give_up(it);
		t->stats.whole++;
	}
	return ustack_tracedat_sbfile_add(t->f, &rec);
}

/* From the head: what is ready, and what is over the window's size (@all: every one) */
static int flush(struct ustack_tracedat_sbtrim *t, bool all)
{
	struct trim_item *it;
	int ret = 0;

	while ((it = t->whead)) {
		if (!all && !ready(it)) {
			if (t->wbytes <= WINDOW_BYTES)
				break;
			give_up_all(t);
		}
		if (write_item(t, it))
			ret = -1;
		t->whead = it->wnext;
		if (!t->whead)
			t->wtail = NULL;
		t->wbytes -= it->size;
		item_put(it);
		if (ret)
			break;
	}
	return ret;
}

/**
 * ustack_tracedat_sbtrim_add - a side-band record for the file, in the merge's order
 * @t:		the writer
 * @rec:	the record (copied: only used during the call)
 *
 * Never waits for the worker. Returns 0, or -1 when the file could not be
 * written (the record and those before it are then lost).
 */
int ustack_tracedat_sbtrim_add(struct ustack_tracedat_sbtrim *t, const struct ustack_sb_rec *rec)
{
	struct trim_item *it = item_copy(rec);

	/*
	 * No room to keep it: what waits goes whole, then this one. The
	 * worker's history misses it if it changed a mapping, so no later
	 * copy is trimmed from that history: every one goes whole.
	 */
	if (!it) {
		t->bound = 0;
		return flush(t, true) || ustack_tracedat_sbfile_add(t->f, rec) ? -1 : 0;
	}
	it->refs = 1;
	if (is_copy(rec) && __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE) < t->bound) {
		__atomic_add_fetch(&t->pending, 1, __ATOMIC_RELAXED);
		queue(t, it);
	} else if (for_history(rec)) {
		queue(t, it);
	}
	if (t->wtail)
		t->wtail->wnext = it;
	else
		t->whead = it;
	t->wtail = it;
	t->wbytes += it->size;
	/* with no worker to wait for, nothing waits (the window's size is 0) */
	return flush(t, !t->bound);
}

static unsigned int queue_bound(void)
{
	const char *env = getenv("USTACK_TRIM_QUEUE");
	char *end;
	long v;

	if (!env || !*env)
		return USTACK_SBTRIM_QUEUE;
	v = strtol(env, &end, 10);
	return *end || v < 0 || v > 1 << 20 ? USTACK_SBTRIM_QUEUE : (unsigned int)v;
}

/**
 * ustack_tracedat_sbtrim_new - write the side-band, stack copies trimmed by a worker
 * @f:		the side-band file; written only through the writer until it
 *		is closed
 * @u:		the unwinder: the worker's alone until it is closed
 * @max_frames:	the unwind's frame limit (the recording's --max-stack)
 *
 * Starts the worker. Returns NULL with errno when it cannot.
 */
struct ustack_tracedat_sbtrim *ustack_tracedat_sbtrim_new(struct ustack_tracedat_sbfile *f,
							  struct ustack_unwinder *u,
							  unsigned int max_frames)
{
	struct ustack_tracedat_sbtrim *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	t->f = f;
	t->u = u;
	t->max_frames = max_frames ? max_frames : 1;
	t->bound = queue_bound();
	t->h = ustack_map_history_new();
	t->frames = calloc(t->max_frames, sizeof(*t->frames));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	err = t->h && t->frames ? pthread_create(&t->thread, NULL, worker, t) : ENOMEM;
	if (err) {
		ustack_map_history_free(t->h);
		free(t->frames);
		pthread_mutex_destroy(&t->lock);
		pthread_cond_destroy(&t->cond);
		free(t);
		errno = err;
		return NULL;
	}
	t->started = true;
	return t;
}

/**
 * ustack_tracedat_sbtrim_close - the worker finishes, the rest is written
 * @t:		the writer (may be NULL)
 * @write:	write what waits (else it is dropped: the file failed)
 * @stats:	NULL, or set to what became of the copies
 *
 * The file stays open, the caller's. Returns 0, or -1 when it could not
 * be written.
 */
int ustack_tracedat_sbtrim_close(struct ustack_tracedat_sbtrim *t, bool write,
				 struct ustack_sbtrim_stats *stats)
{
	struct trim_item *it;
	int ret = 0, i;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	t->closing = true;
	pthread_mutex_unlock(&t->lock);
	pthread_cond_signal(&t->cond);
	if (t->started)
		pthread_join(t->thread, NULL);
	if (write)
		ret = flush(t, true);
	while ((it = t->whead)) {
		t->whead = it->wnext;
		item_put(it);
	}
	t->stats.worker_ns = t->cpu_ns;
	if (stats)
		*stats = t->stats;
	ustack_map_history_free(t->h);
	free(t->frames);
	for (i = 0; i < MEMO_SLOTS; i++)
		free(t->memo[i].buf);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	free(t);
	return ret;
}
