// SPDX-License-Identifier: LGPL-2.1
/*
 * Per-CPU ring-buffer readers of trace-cmd ustack (see ustack-stream.h).
 *
 * Why this shape (measured, see the design notes): a blocking splice with
 * buffer_percent 0 busy-loops, and a reader woken for every event feeds
 * on its own wakeups. So the fds are non-blocking, poll() waits for the
 * watermark or the tick, and each wakeup drains all CPUs at once.
 *
 * Records of a batch are released only up to the trace-clock time read
 * just before the drain: anything later may still be in flight on a CPU
 * drained earlier, and the session needs timestamp order across CPUs.
 *
 * The perf side-band (fallback path) is drained in the same tick, after
 * the trace buffers: a task's mapping and name records are written before
 * its later events, so every side-band record an event drained here
 * depends on is in the rings by then. Its records wait in the side-band
 * queue (ustack-stream-sideband.c), which the merge here releases between
 * the trace records by time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "ustack-array.h"
#include "ustack-dropped.h"
#include "ustack-events.h"
#include "ustack-instance.h"
#include "ustack-list.h"
#include "ustack-recorder.h"
#include "ustack-sideband.h"
#include "ustack-stopsig.h"
#include "ustack-stream.h"
#include "ustack-stream-int.h"
#include "ustack-tempfile.h"
#include "ustack-warn.h"

#define DEFAULT_TICK_US		100000
/* Bound one CPU's drain so a flood on one CPU cannot starve the others. */
#define MAX_PAGES_PER_DRAIN	1024
/*
 * What the reader may queue ahead of the consumer. Past it the reader
 * waits and the kernel's buffers fill, so that an overload shows up as the
 * kernel's counted losses, never as a queue that grows without bound and
 * that a stop would have to work through.
 */
#define MAX_QUEUED_BYTES	(16UL << 20)
/* What one ustack_stream_consume() may spend before it lets its caller look */
#define CONSUME_BUDGET_NS	100000000ULL
/* Sub-buffers of one CPU's file read back at a time (direct mode). */
#define REPLAY_PAGES		256

struct page {
	struct ustack_list	list;		/* of its batch, then its CPU */
	int			cpu;
	int			nr;		/* records parsed */
	int			pos;		/* next record to hand out */
	bool			parsed;
	long long		missed;		/* lost before it, not told yet */
	struct tep_record	*recs;
	char			data[];
};

struct batch {
	struct ustack_list	list;		/* the queue */
	unsigned long long	horizon;	/* release records up to this ts */
	bool			final;
	struct ustack_list	pages;
	char			*sb;		/* raw perf side-band records */
	size_t			sb_len;
	size_t			sb_alloc;
	size_t			bytes;		/* pages and side-band, queued */
};

struct cpu_reader {
	int			fd;
	struct tracefs_cpu	*tcpu;
	int			save_fd;
	struct ustack_dropped	dropped;	/* the kernel's drops, told in the data */
	struct ustack_list	pages;		/* parsed, not yet released */
};

struct ustack_stream {
	struct ustack_instance	*ui;
	struct tep_handle	*tep;
	struct kbuffer		*kbuf;
	int			nr_cpus;
	int			subbuf_size;
	int			commit_size;	/* of a sub-buffer's header */
	unsigned int		tick_us;
	struct cpu_reader	*cpus;
	char			**files;
	int			save_errno;	/* first failed write of files[] */
	int			ctl[2];		/* consumer -> reader: stop */
	int			ready[2];	/* reader -> consumer: batch */
	pthread_t		thread;
	bool			running;
	pthread_mutex_t		lock;
	pthread_cond_t		room;		/* queued_bytes went down */
	struct ustack_list	queue;
	size_t			nr_queued;
	size_t			queued_bytes;
	size_t			unread_bytes;	/* left when closed early */
	bool			stopping;
	volatile pid_t		tid;
	struct ustack_perf_sideband	*perf;
	struct ustack_stream_sideband sb;	/* its records, waiting */
	struct ustack_recorder	*rec;		/* direct mode */
	bool			readback;	/* files only, nothing traced */
	bool			replayed;
};

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static struct page *page_alloc(int size, int cpu)
{
	struct page *p = malloc(sizeof(*p) + size);

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	ustack_list_init(&p->list);
	p->cpu = cpu;
	return p;
}

static void page_free(struct page *p)
{
	ustack_list_del(&p->list);
	free(p->recs);
	free(p);
}

static void free_pages(struct ustack_list *pages)
{
	while (!ustack_list_empty(pages))
		page_free(ustack_list_first_entry(pages, struct page, list));
}

static void batch_free(struct batch *b)
{
	free_pages(&b->pages);
	free(b->sb);
	free(b);
}

static struct batch *batch_new(bool final)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	ustack_list_init(&b->list);
	ustack_list_init(&b->pages);
	b->final = final;
	return b;
}

static void save_page(struct ustack_stream *st, struct cpu_reader *cr, const void *data)
{
	ssize_t w;

	if (cr->save_fd < 0)
		return;
	w = write(cr->save_fd, data, st->subbuf_size);
	if (w != st->subbuf_size) {
		/*
		 * Said once, by the caller: see ustack_stream_save_error().
		 * The first failure is the cause; another CPU's later one
		 * (often its consequence) must not replace it.
		 */
		int err = w < 0 ? errno : ENOSPC, none = 0;

		__atomic_compare_exchange_n(&st->save_errno, &none, err, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		close(cr->save_fd);
		cr->save_fd = -1;
	}
}

/* One non-blocking read of a CPU: splice for full pages, read() for the rest. */
static int read_page(struct ustack_stream *st, struct cpu_reader *cr, void *buf, bool *partial)
{
	int r;

	if (!*partial) {
		r = tracefs_cpu_buffered_read(cr->tcpu, buf, true);
		if (r > 0)
			return r;
		if (r < 0 && errno != EAGAIN)
			return r;
		*partial = true;
	}
	r = tracefs_cpu_read(cr->tcpu, buf, true);
	if (r < 0 && errno == EAGAIN)
		r = 0;
	return r;
}

/* A sub-buffer read or made here: saved, and queued in @b */
static void add_page(struct ustack_stream *st, struct cpu_reader *cr, struct batch *b,
		     struct page *p)
{
	save_page(st, cr, p->data);
	ustack_list_add_tail(&p->list, &b->pages);
	b->bytes += st->subbuf_size;
}

/* A marker of the drops of @cpu (ustack-dropped.c), queued: @n 0 begins a span */
static void add_marker(struct ustack_stream *st, int cpu, struct batch *b, uint64_t n)
{
	struct page *p = page_alloc(st->subbuf_size, cpu);

	if (!p) {
		ustack_warning("CPU %d: no memory to tell the records its buffer dropped", cpu);
		return;
	}
	ustack_dropped_marker(p->data, st->subbuf_size, st->commit_size, n);
	add_page(st, &st->cpus[cpu], b, p);
}

/*
 * Every sub-buffer of @cpu there is now, up to a bound, into @b, with the
 * markers of what its full buffer dropped around them. Returns how many
 * were read, or -1 when out of memory.
 */
static int drain_cpu(struct ustack_stream *st, int cpu, struct batch *b, bool last)
{
	struct cpu_reader *cr = &st->cpus[cpu];
	struct ustack_list taken;
	bool partial = false;
	struct page *p;
	int n, r = 0;
	uint64_t end;

	ustack_list_init(&taken);
	for (n = 0; n < MAX_PAGES_PER_DRAIN; n++) {
		p = page_alloc(st->subbuf_size, cpu);
		if (!p) {
			r = -1;
			break;
		}
		r = read_page(st, cr, p->data, &partial);
		if (r <= 0) {
			page_free(p);
			break;
		}
		ustack_list_add_tail(&p->list, &taken);
	}
	/* a full buffer drops only while data comes: read when it came */
	if ((n || cr->dropped.open || last) && ustack_dropped_read(&cr->dropped, st->ui, cpu))
		add_marker(st, cpu, b, 0);
	while (!ustack_list_empty(&taken)) {
		p = ustack_list_first_entry(&taken, struct page, list);
		ustack_list_del(&p->list);
		add_page(st, cr, b, p);
	}
	end = ustack_dropped_close(&cr->dropped, n < MAX_PAGES_PER_DRAIN, last);
	if (end)
		add_marker(st, cpu, b, end);
	return r < 0 ? -1 : n;
}

static void push_batch(struct ustack_stream *st, struct batch *b)
{
	char c = 0;

	/* The pages were counted as drain_cpu() read them */
	b->bytes += b->sb_len;
	pthread_mutex_lock(&st->lock);
	ustack_list_add_tail(&b->list, &st->queue);
	st->nr_queued++;
	st->queued_bytes += b->bytes;
	pthread_mutex_unlock(&st->lock);
	if (write(st->ready[1], &c, 1) < 0 && errno != EAGAIN)
		ustack_warning("reader notify: %s", strerror(errno));
}

/* The CPUs, the stop pipe, then the side-band rings. */
static struct pollfd *reader_pollfds(struct ustack_stream *st, int *nr)
{
	int c, i, nr_sb = ustack_perf_sideband_nr_fds(st->perf);
	struct pollfd *pfd;

	*nr = st->nr_cpus + 1 + nr_sb;
	pfd = calloc(*nr, sizeof(*pfd));
	if (!pfd)
		return NULL;
	for (c = 0; c < st->nr_cpus; c++) {
		pfd[c].fd = st->cpus[c].fd;
		pfd[c].events = POLLIN;
	}
	pfd[c].fd = st->ctl[0];
	pfd[c].events = POLLIN;
	for (i = 0; i < nr_sb; i++) {
		pfd[c + 1 + i].fd = ustack_perf_sideband_fd(st->perf, i);
		pfd[c + 1 + i].events = POLLIN;
	}
	return pfd;
}

/* Wait, a tick at a time, while the queue is full and no stop was asked */
static void wait_for_room(struct ustack_stream *st)
{
	struct timespec ts;

	pthread_mutex_lock(&st->lock);
	while (st->queued_bytes >= MAX_QUEUED_BYTES &&
	       !__atomic_load_n(&st->stopping, __ATOMIC_ACQUIRE)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)st->tick_us * 1000;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&st->room, &st->lock, &ts);
	}
	pthread_mutex_unlock(&st->lock);
}

static void *reader_thread(void *arg)
{
	struct ustack_stream *st = arg;
	struct pollfd *pfd;
	struct batch *b;
	bool final = false;
	int cpu, nr_pfd;
	char c;

	st->tid = gettid();
	pfd = reader_pollfds(st, &nr_pfd);
	while (pfd && !final) {
		wait_for_room(st);
		poll(pfd, nr_pfd, st->tick_us / 1000);
		if (pfd[st->nr_cpus].revents & POLLIN) {
			while (read(st->ctl[0], &c, 1) > 0)
				;
			final = true;
		}
		b = batch_new(final);
		if (!b)
			break;
		b->horizon = final ? ULLONG_MAX : ustack_instance_now(st->ui);
		for (cpu = 0; cpu < st->nr_cpus; cpu++)
			drain_cpu(st, cpu, b, final);
		if (ustack_perf_sideband_drain(st->perf, &b->sb, &b->sb_len, &b->sb_alloc) ||
		    (final && ustack_perf_sideband_drain_last(st->perf, &b->sb, &b->sb_len, &b->sb_alloc)))
			ustack_warning("side-band: out of memory");
		push_batch(st, b);
	}
	free(pfd);
	if (!final) {
		/* Out of memory: still let the consumer finish. */
		b = batch_new(true);
		if (b)
			push_batch(st, b);
	}
	return NULL;
}

static int open_cpu(struct ustack_stream *st, int cpu, const char *save_prefix)
{
	struct cpu_reader *cr = &st->cpus[cpu];
	char file[64];

	cr->save_fd = -1;
	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	cr->fd = tracefs_instance_file_open(ustack_instance_tracefs(st->ui), file,
					    O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (cr->fd < 0)
		return -1;
	ustack_instance_register_fd(st->ui, cr->fd);
	cr->tcpu = tracefs_cpu_alloc_fd(cr->fd, st->subbuf_size, true);
	if (!cr->tcpu)
		return -1;
	if (!save_prefix)
		return 0;
	/* Unique: two runs writing one output must not share them */
	if (asprintf(&st->files[cpu], "%s.cpu%d.XXXXXX", save_prefix, cpu) < 0) {
		st->files[cpu] = NULL;
		return -1;
	}
	cr->save_fd = ustack_tempfile_make(&st->files[cpu]);
	if (cr->save_fd < 0) {
		free(st->files[cpu]);
		st->files[cpu] = NULL;
		return -1;
	}
	return 0;
}

/* Direct mode: the recorder writes the files, the stream reads them back. */
static int open_direct(struct ustack_stream *st, const char *prefix)
{
	char * const *files;
	int cpu;

	if (!prefix) {
		errno = EINVAL;
		return -1;
	}
	st->rec = ustack_recorder_open(st->ui, st->nr_cpus, st->subbuf_size, st->commit_size,
				       prefix, st->tick_us);
	if (!st->rec)
		return -1;
	files = ustack_recorder_files(st->rec);
	for (cpu = 0; cpu < st->nr_cpus; cpu++)
		st->files[cpu] = strdup(files[cpu]);
	for (cpu = 0; cpu < st->nr_cpus; cpu++) {
		if (st->files[cpu])
			continue;
		/* Those copied go with the stream (ustack_stream_open()) */
		for (; cpu < st->nr_cpus; cpu++)
			if (!st->files[cpu])
				ustack_tempfile_remove(files[cpu]);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Direct mode: what made the recorder stop short, kept past its end */
static void keep_recorder_error(struct ustack_stream *st, int ret)
{
	if (ret < 0 && !ustack_stream_save_error(st))
		__atomic_store_n(&st->save_errno, errno, __ATOMIC_RELAXED);
}

/* A stream of @nr_cpus CPUs with nothing open yet, or NULL */
static struct ustack_stream *stream_alloc(struct tep_handle *tep, int nr_cpus)
{
	struct ustack_stream *st = calloc(1, sizeof(*st));
	int cpu;

	if (!st)
		return NULL;
	st->tep = tep;
	st->nr_cpus = nr_cpus;
	st->ctl[0] = st->ctl[1] = st->ready[0] = st->ready[1] = -1;
	ustack_list_init(&st->queue);
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->room, NULL);
	st->subbuf_size = tep_get_sub_buffer_size(tep);
	st->commit_size = ustack_dropped_commit_size(tep);
	if (st->subbuf_size <= 0)
		st->subbuf_size = getpagesize();
	st->kbuf = tep_kbuffer(tep);
	st->cpus = calloc(nr_cpus, sizeof(*st->cpus));
	st->files = calloc(nr_cpus + 1, sizeof(*st->files));
	/* Before any failure: freeing closes every CPU's descriptors */
	for (cpu = 0; st->cpus && cpu < nr_cpus; cpu++) {
		st->cpus[cpu].fd = st->cpus[cpu].save_fd = -1;
		ustack_list_init(&st->cpus[cpu].pages);
	}
	if (!st->kbuf || !st->cpus || !st->files) {
		ustack_stream_free(st);
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

/**
 * ustack_stream_open - open the per-CPU readers of an instance
 * @ui: the instance
 * @tep: event formats (also gives the sub-buffer layout; their size is
 *	the instance's)
 * @opts: tick and optional raw-data files; direct mode needs the files
 *
 * Returns NULL with errno on failure (what was opened is closed).
 */
struct ustack_stream *ustack_stream_open(struct ustack_instance *ui, struct tep_handle *tep,
					 const struct ustack_stream_opts *opts)
{
	struct ustack_stream *st;
	int cpu, err, size;

	st = stream_alloc(tep, sysconf(_SC_NPROCESSORS_CONF));
	if (!st)
		return NULL;
	st->ui = ui;
	/*
	 * The instance's own size: the header page in @tep is the top
	 * level's, and an instance may have larger sub-buffers (stack copies)
	 */
	size = ustack_instance_subbuf_size(ui);
	if (size > 0)
		st->subbuf_size = size;
	st->perf = opts ? opts->perf : NULL;
	st->tick_us = opts && opts->tick_us ? opts->tick_us : DEFAULT_TICK_US;
	if (st->tick_us < 1000)
		st->tick_us = 1000;
	if (pipe2(st->ctl, O_NONBLOCK | O_CLOEXEC) < 0 ||
	    pipe2(st->ready, O_NONBLOCK | O_CLOEXEC) < 0)
		goto fail;
	if (opts && opts->direct) {
		if (open_direct(st, opts->save_prefix) < 0)
			goto fail;
		return st;
	}
	for (cpu = 0; cpu < st->nr_cpus; cpu++)
		if (open_cpu(st, cpu, opts ? opts->save_prefix : NULL) < 0)
			goto fail;
	return st;
 fail:
	/* The caller never sees the files made so far: they go here */
	err = errno;
	ustack_stream_close(st);
	ustack_stream_remove_files(st);
	ustack_stream_free(st);
	errno = err;
	return NULL;
}

/**
 * ustack_stream_open_files - read back per-CPU files written earlier
 * @tep: event formats (also gives the sub-buffer layout)
 * @files: one raw sub-buffer file per CPU, NULL-terminated
 *
 * The stream traces nothing: its first ustack_stream_consume() hands out
 * the records of @files merged in timestamp order, exactly as a direct
 * mode stream does once stopped (the merge is the one being tested, so
 * the unit tests go through it, not through a copy). Returns NULL with
 * errno on failure.
 */
struct ustack_stream *ustack_stream_open_files(struct tep_handle *tep, char * const *files)
{
	struct ustack_stream *st;
	int cpu, nr = 0;

	while (files[nr])
		nr++;
	st = stream_alloc(tep, nr);
	if (!st)
		return NULL;
	st->readback = st->stopping = true;
	for (cpu = 0; cpu < nr; cpu++) {
		st->files[cpu] = strdup(files[cpu]);
		if (!st->files[cpu]) {
			ustack_stream_free(st);
			errno = ENOMEM;
			return NULL;
		}
	}
	return st;
}

/**
 * ustack_stream_start - start the reader thread
 * @st: the stream
 *
 * The thread blocks SIGINT/SIGTERM/SIGHUP so the main thread gets them.
 */
int ustack_stream_start(struct ustack_stream *st)
{
	sigset_t set, old;
	int ret;

	if (st->rec) {
		if (ustack_recorder_start(st->rec) < 0)
			return -1;
		st->running = true;
		return 0;
	}
	ustack_stopsig_signals(&set);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	ret = pthread_create(&st->thread, NULL, reader_thread, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		errno = ret;
		return -1;
	}
	st->running = true;
	/* The caller may want to keep the reader out of the trace. */
	while (!st->tid)
		usleep(1000);
	return 0;
}

/**
 * ustack_stream_tid - thread ids of the readers
 * @st: the started stream
 * @i: 0, 1, ... until 0 is returned
 */
pid_t ustack_stream_tid(struct ustack_stream *st, int i)
{
	if (st->rec)
		return ustack_recorder_tid(st->rec, i);
	return i ? 0 : st->tid;
}

int ustack_stream_fd(struct ustack_stream *st)
{
	return st->ready[0];
}

void ustack_stream_stop(struct ustack_stream *st)
{
	char c = 0;

	if (st->stopping)
		return;
	__atomic_store_n(&st->stopping, true, __ATOMIC_RELEASE);
	/* Direct mode: the recorder is stopped by the next consume. */
	if (st->rec)
		return;
	if (write(st->ctl[1], &c, 1) < 0 && errno != EAGAIN)
		ustack_warning("stop reader: %s", strerror(errno));
}

/*
 * Parse a raw sub-buffer into records that point into it. Returns 0,
 * -EINVAL when it does not load, -ENOMEM when no memory is left for its
 * records: those parsed before stay, to be handed out.
 */
static int parse_page(struct ustack_stream *st, struct page *p)
{
	unsigned long long ts;
	struct tep_record *r;
	size_t alloc = 0;
	void *data;

	if (kbuffer_load_subbuffer(st->kbuf, p->data) < 0)
		return -EINVAL;
	/* told as the page comes to the front of its CPU: it may hold no record */
	p->missed = kbuffer_missed_events(st->kbuf);
	while ((data = kbuffer_read_event(st->kbuf, &ts))) {
		if (ustack_array_grow((void **)&p->recs, &alloc, p->nr + 1, sizeof(*r)))
			return -ENOMEM;
		r = &p->recs[p->nr];
		memset(r, 0, sizeof(*r));
		r->ts = ts;
		r->data = data;
		r->size = kbuffer_event_size(st->kbuf);
		r->record_size = kbuffer_curr_size(st->kbuf);
		r->cpu = p->cpu;
		r->ref_count = 1;
		r->locked = 1;
		p->nr++;
		kbuffer_next_event(st->kbuf, NULL);
	}
	return 0;
}

/*
 * A sub-buffer's records, ready to hand out. One that cannot be read
 * whole is said, with its CPU: its records (or the rest of them) must
 * not go missing without a word.
 */
static void parse_said(struct ustack_stream *st, struct page *p)
{
	int err;

	p->parsed = true;
	err = parse_page(st, p);
	if (err)
		ustack_warning("CPU %d: a sub-buffer of trace data %s: its records%s are not read",
			       p->cpu, err == -ENOMEM ? "with no memory left to read it" :
			       "that does not load", p->nr ? " after the first ones" : "");
}

/*
 * A loss before @p, told when every record of its CPU before it is out:
 * before records of other CPUs move time past events whose cookie was in
 * the lost part. A sub-buffer with no record that says so begins a span
 * of drops (ustack-dropped.c). Without a callback, the first record
 * carries it, as a kernel's sub-buffer gives it.
 */
static void tell_missed(struct page *p, int cpu, const struct ustack_stream_ops *ops, void *ctx)
{
	long long missed = p->missed;

	p->missed = 0;
	if (!missed)
		return;
	if (!p->nr && missed < 0)
		missed = USTACK_DROPS_BEGIN;
	if (ops->lost)
		ops->lost(cpu, missed, ctx);
	else if (p->nr)
		p->recs[0].missed_events = missed;
}

/* The oldest record of a CPU not handed out yet, or NULL. */
static struct tep_record *cpu_head(struct cpu_reader *cr, int cpu,
				   const struct ustack_stream_ops *ops, void *ctx)
{
	struct page *p;

	while (!ustack_list_empty(&cr->pages)) {
		p = ustack_list_first_entry(&cr->pages, struct page, list);
		if (!p->pos)
			tell_missed(p, cpu, ops, ctx);
		if (p->pos < p->nr)
			return &p->recs[p->pos];
		page_free(p);
	}
	return NULL;
}

/**
 * ustack_stream_add_sideband - perf side-band records for a read-back stream
 * @st: from ustack_stream_open_files(), not consumed yet
 * @buf: records as ustack_perf_sideband_drain() gives them (any ring order)
 * @len: bytes in @buf
 *
 * The records wait to be merged with the files' records, as those of one
 * drain of a live stream's side-band do: the read-back path has no
 * side-band of its own, and the tests of the merge need one. Returns 0,
 * or -1 (EINVAL) when @st is not a read-back stream or was consumed,
 * (ENOMEM) when not every record could be queued.
 */
int ustack_stream_add_sideband(struct ustack_stream *st, const char *buf, size_t len)
{
	size_t dropped;
	char *copy;

	if (!st->readback || st->replayed) {
		errno = EINVAL;
		return -1;
	}
	/* the records' chunk takes the buffer over: ours, not the caller's */
	copy = malloc(len ? len : 1);
	if (!copy)
		return -1;
	memcpy(copy, buf, len);
	dropped = ustack_stream_sideband_add(&st->sb, &copy, len);
	free(copy);
	if (dropped) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Hand out every record up to @horizon, smallest timestamp first. */
static void merge_release(struct ustack_stream *st, unsigned long long horizon,
			  const struct ustack_stream_ops *ops, void *ctx)
{
	struct tep_record *best, *r;
	int cpu, best_cpu;

	for (;;) {
		best = NULL;
		best_cpu = -1;
		for (cpu = 0; cpu < st->nr_cpus; cpu++) {
			r = cpu_head(&st->cpus[cpu], cpu, ops, ctx);
			if (r && (!best || r->ts < best->ts)) {
				best = r;
				best_cpu = cpu;
			}
		}
		if (ustack_stream_sideband_release(&st->sb, best, horizon, ops, ctx))
			continue;
		if (!best || best->ts > horizon)
			return;
		ops->record(best, ctx);
		ustack_list_first_entry(&st->cpus[best_cpu].pages, struct page, list)->pos++;
	}
}

static void batch_callback(struct ustack_stream *st, struct batch *b,
			   const struct ustack_stream_ops *ops, void *ctx)
{
	struct tep_record **recs = NULL;
	struct ustack_list *pos;
	struct page *p;
	int nr = 0, i;

	ustack_list_for_each(pos, &b->pages)
		nr += ustack_list_entry(pos, struct page, list)->nr;
	if (nr)
		recs = malloc(nr * sizeof(*recs));
	if (!recs)
		return;
	nr = 0;
	ustack_list_for_each(pos, &b->pages) {
		p = ustack_list_entry(pos, struct page, list);
		for (i = 0; i < p->nr; i++)
			recs[nr++] = &p->recs[i];
	}
	ops->batch(recs, nr, ctx);
	free(recs);
}

static bool consume_batch(struct ustack_stream *st, struct batch *b,
			  const struct ustack_stream_ops *ops, void *ctx)
{
	unsigned long long horizon = b->horizon;
	struct ustack_list *pos, *tmp;
	bool final = b->final;
	struct page *p;
	size_t dropped;

	ustack_list_for_each(pos, &b->pages) {
		p = ustack_list_entry(pos, struct page, list);
		if (!p->parsed)
			parse_said(st, p);
	}
	if (ops->batch)
		batch_callback(st, b, ops, ctx);
	ustack_list_for_each_safe(pos, tmp, &b->pages) {
		p = ustack_list_entry(pos, struct page, list);
		ustack_list_del(&p->list);
		ustack_list_add_tail(&p->list, &st->cpus[p->cpu].pages);
	}
	dropped = ustack_stream_sideband_add(&st->sb, &b->sb, b->sb_len);
	if (dropped)
		ustack_warning("side-band: out of memory: %zu bytes of its records dropped", dropped);
	batch_free(b);
	merge_release(st, final ? ULLONG_MAX : horizon, ops, ctx);
	if (ops->horizon && !final && horizon)
		ops->horizon(horizon, ctx);
	return final;
}

static struct batch *pop_batch(struct ustack_stream *st)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&st->lock);
	if (!ustack_list_empty(&st->queue)) {
		b = ustack_list_first_entry(&st->queue, struct batch, list);
		ustack_list_del(&b->list);
		st->nr_queued--;
		st->queued_bytes -= b->bytes;
		pthread_cond_signal(&st->room);
	}
	pthread_mutex_unlock(&st->lock);
	return b;
}

/* Read whole sub-buffers of a recorded file; a short read is its end. */
static ssize_t read_subbuf(int fd, char *buf, int size)
{
	ssize_t r, got = 0;

	while (got < size) {
		r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? r : got;
		got += r;
	}
	return got;
}

/*
 * Up to REPLAY_PAGES sub-buffers of a CPU's file into @b, parsed; @last
 * becomes the time of the last record read. Returns 1 at the file's end.
 */
static int replay_read(struct ustack_stream *st, int cpu, struct batch *b,
		       unsigned long long *last)
{
	struct cpu_reader *cr = &st->cpus[cpu];
	struct page *p;
	ssize_t r;
	int n;

	for (n = 0; n < REPLAY_PAGES; n++) {
		p = page_alloc(st->subbuf_size, cpu);
		if (!p)
			return 1;
		r = read_subbuf(cr->fd, p->data, st->subbuf_size);
		if (r < st->subbuf_size) {
			if (r < 0)
				ustack_warning("reading %s: %s", st->files[cpu], strerror(errno));
			page_free(p);
			return 1;
		}
		parse_said(st, p);
		if (p->nr)
			*last = p->recs[p->nr - 1].ts;
		ustack_list_add_tail(&p->list, &b->pages);
	}
	return 0;
}

/*
 * Direct mode: stop the recorder once, before its files are read. Returns
 * 1, or -1 when it stopped short (said once, by the caller: see
 * ustack_stream_save_error()).
 */
static int stop_recorder(struct ustack_stream *st)
{
	st->replayed = true;
	if (st->rec && ustack_recorder_stop(st->rec) < 0) {
		keep_recorder_error(st, -1);
		return -1;
	}
	return 1;
}

/*
 * Direct mode, once recording stopped: the files in timestamp order. A
 * CPU is read further only once what was read of it is handed out, and
 * records are released up to the earliest "last read" of the CPUs not at
 * their end: nothing earlier can come from any file.
 */
static int replay(struct ustack_stream *st, const struct ustack_stream_ops *ops, void *ctx)
{
	unsigned long long *last, horizon, prev = 0;
	bool final = false;
	struct batch *b;
	int cpu, ret = 1;

	if (st->replayed)
		return 1;
	ret = stop_recorder(st);
	last = calloc(st->nr_cpus, sizeof(*last));
	if (!last)
		return -1;
	for (cpu = 0; cpu < st->nr_cpus; cpu++)
		st->cpus[cpu].fd = open(st->files[cpu], O_RDONLY | O_CLOEXEC);
	while (!final) {
		b = batch_new(false);
		if (!b) {
			ret = -1;
			break;
		}
		horizon = ULLONG_MAX;
		for (cpu = 0; cpu < st->nr_cpus; cpu++) {
			struct cpu_reader *cr = &st->cpus[cpu];

			if (cr->fd >= 0 && last[cpu] <= prev &&
			    replay_read(st, cpu, b, &last[cpu]))
				close_fd(&cr->fd);
			if (cr->fd >= 0 && last[cpu] < horizon)
				horizon = last[cpu];
		}
		b->final = final = horizon == ULLONG_MAX;
		b->horizon = prev = horizon;
		consume_batch(st, b, ops, ctx);
	}
	free(last);
	return ret;
}

/**
 * ustack_stream_consume - parse and hand out every batch that is ready
 * @st: the stream
 * @ops: what to call (see struct ustack_stream_ops)
 * @ctx: passed to every callback
 *
 * Only the batches queued when it is called, and no more once it has spent
 * CONSUME_BUDGET_NS: a reader that queues faster than the consumer parses
 * must not keep the caller from its own checks (a stop asked by a
 * signal). What is left wakes the stream's fd again.
 *
 * Returns 1 after the final batch, else 0.
 */
int ustack_stream_consume(struct ustack_stream *st, const struct ustack_stream_ops *ops,
			  void *ctx)
{
	unsigned long long end = mono_ns() + CONSUME_BUDGET_NS;
	struct batch *b;
	size_t n;
	char buf[64];

	if (st->rec || st->readback)
		return st->stopping ? replay(st, ops, ctx) : 0;
	while (read(st->ready[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&st->lock);
	n = st->nr_queued;
	pthread_mutex_unlock(&st->lock);
	while (n-- && (b = pop_batch(st))) {
		if (consume_batch(st, b, ops, ctx))
			return 1;
		if (mono_ns() >= end)
			break;
	}
	pthread_mutex_lock(&st->lock);
	n = st->nr_queued;
	pthread_mutex_unlock(&st->lock);
	if (n && write(st->ready[1], buf, 1) < 0 && errno != EAGAIN)
		ustack_warning("reader notify: %s", strerror(errno));
	return 0;
}

static void close_cpu(struct ustack_stream *st, struct cpu_reader *cr)
{
	if (cr->tcpu)
		tracefs_cpu_free_fd(cr->tcpu);
	cr->tcpu = NULL;
	if (cr->fd >= 0) {
		ustack_instance_unregister_fd(st->ui, cr->fd);
		close(cr->fd);
	}
	cr->fd = -1;
	if (cr->save_fd >= 0)
		close(cr->save_fd);
	cr->save_fd = -1;
	free_pages(&cr->pages);
}

/**
 * ustack_stream_close - stop the reader and release everything but the files
 * @st: the stream (may be NULL)
 *
 * Safe to call twice; the per-CPU data files stay on disk until the
 * caller removes them.
 */
void ustack_stream_close(struct ustack_stream *st)
{
	struct batch *b;
	int cpu;

	if (!st || !st->cpus)
		return;
	if (st->rec) {
		if (!st->replayed)
			keep_recorder_error(st, ustack_recorder_stop(st->rec));
		ustack_recorder_free(st->rec);
		st->rec = NULL;
		st->running = false;
	}
	if (st->running) {
		ustack_stream_stop(st);
		pthread_join(st->thread, NULL);
		st->running = false;
	}
	while ((b = pop_batch(st))) {
		st->unread_bytes += b->bytes;
		batch_free(b);
	}
	/* the side-band records the merge held: said with the rest */
	st->unread_bytes += ustack_stream_sideband_free(&st->sb);
	for (cpu = 0; cpu < st->nr_cpus; cpu++) {
		struct ustack_list *pos;

		ustack_list_for_each(pos, &st->cpus[cpu].pages)
			st->unread_bytes += st->subbuf_size;
		close_cpu(st, &st->cpus[cpu]);
	}
	close_fd(&st->ctl[0]);
	close_fd(&st->ctl[1]);
	close_fd(&st->ready[0]);
	close_fd(&st->ready[1]);
	if (st->kbuf)
		kbuffer_free(st->kbuf);
	st->kbuf = NULL;
}

/**
 * ustack_stream_unread - what a stream closed before its final batch kept back
 * @st: the stream, closed
 *
 * Returns the bytes of sub-buffers and side-band records that were read
 * from the kernel but never handed out, because ustack_stream_close()
 * came before ustack_stream_consume() returned 1; 0 after a whole run.
 * Every record kept back counts: the sub-buffers of batches never
 * consumed and those whose later records the merge held, and the perf
 * side-band records (each its perf record's size) of those batches and
 * of the queue where the merge held them; a read-back stream's side-band
 * (ustack_stream_add_sideband()) is counted the same way.
 */
size_t ustack_stream_unread(const struct ustack_stream *st)
{
	return st->unread_bytes;
}

/**
 * ustack_stream_save_error - why saving the raw data failed
 * @st: the stream
 *
 * Returns 0, or the errno of the first failed write of a per-CPU file
 * (that CPU is not saved from then on: the data is incomplete), by the
 * reader thread or, in direct mode, by the recorder's threads: polled
 * while recording, kept after ustack_stream_close().
 */
int ustack_stream_save_error(struct ustack_stream *st)
{
	int err = __atomic_load_n(&st->save_errno, __ATOMIC_RELAXED);

	if (!err && st->rec)
		err = ustack_recorder_error(st->rec);
	return err;
}

/**
 * ustack_stream_remove_files - delete the per-CPU files
 * @st: the stream, closed (ustack_stream_close())
 *
 * Safe on any exit path, and more than once.
 */
void ustack_stream_remove_files(struct ustack_stream *st)
{
	int cpu;

	for (cpu = 0; st->files && cpu < st->nr_cpus; cpu++) {
		if (st->files[cpu])
			ustack_tempfile_remove(st->files[cpu]);
	}
}

/**
 * ustack_stream_free - free a closed stream and its file names
 * @st: the stream (may be NULL)
 */
void ustack_stream_free(struct ustack_stream *st)
{
	int cpu;

	if (!st)
		return;
	ustack_stream_close(st);
	for (cpu = 0; st->files && cpu < st->nr_cpus; cpu++)
		free(st->files[cpu]);
	free(st->files);
	free(st->cpus);
	st->cpus = NULL;
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->room);
	free(st);
}

/* Bytes the recorder wrote so far (direct mode), else 0. */
uint64_t ustack_stream_bytes(struct ustack_stream *st)
{
	return st->rec ? ustack_recorder_bytes(st->rec) : 0;
}

int ustack_stream_nr_cpus(struct ustack_stream *st)
{
	return st->nr_cpus;
}

char * const *ustack_stream_files(struct ustack_stream *st)
{
	return st->files;
}

