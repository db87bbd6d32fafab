// SPDX-License-Identifier: LGPL-2.1
/*
 * Per-CPU splice recorder of trace-cmd ustack record (see ustack-recorder.h).
 *
 * Why this shape (measured in the VM, bench/pipeline/RESULTS.md): with one
 * reader thread copying every sub-buffer to user space and a consumer
 * parsing it into the session while the workload runs, a burst of 200,000
 * traced getppid calls overran the ring buffer by tens of thousands of
 * entries where `trace-cmd record` lost none or few. Recording needs none
 * of that work: each CPU gets a thread that only moves whole sub-buffers
 * (splice into a pipe as large as the system allows, then splice the pipe
 * into the file), woken by the buffer_percent watermark or the tick. A
 * CPU's drain never waits for another CPU's, nor for the session, which
 * reads the files once recording is over.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include <tracefs.h>

#include "ustack-dropped.h"
#include "ustack-instance.h"
#include "ustack-io.h"
#include "ustack-recorder.h"
#include "ustack-stopsig.h"
#include "ustack-tempfile.h"
#include "ustack-warn.h"

/*
 * Poll timeout after a wakeup that found no full sub-buffer to move: 1 ms
 * after the first, doubled after each one in a row, up to the tick. At
 * buffer_percent 0 a partial sub-buffer keeps the buffer readable for as
 * long as it takes to fill; each nap is a timer, two polls and a splice,
 * which a fixed short nap would repeat until the recorder took a CPU of
 * its own on a slow kernel (a debug kernel under TCG).
 */
#define IDLE_MS		1
/*
 * The threads' nice value: a drain that runs late, behind the traced
 * threads on a busy CPU, loses records (bench/pipeline/NOTES.md). Each
 * wakeup only moves what filled, so the workload loses little.
 */
#define RECORDER_NICE	(-10)
#define PIPE_SIZE_FALLBACK	(1 << 20)

struct rec_cpu {
	struct ustack_recorder	*rec;
	int			cpu;
	int			fd;		/* trace_pipe_raw, non-blocking */
	int			out;		/* the per-CPU file */
	int			pipe[2];
	int			pipe_size;
	pthread_t		thread;
	bool			started;
	volatile pid_t		tid;
	int			error;		/* atomic: errno of a failed write, else 0 */
	uint64_t		bytes;		/* atomic: read by the main thread */
	struct ustack_dropped	dropped;	/* the kernel's drops, told in the file */
	char			*buf;		/* one sub-buffer, for copies */
	char			*mark;		/* one sub-buffer, for markers */
};

struct ustack_recorder {
	struct ustack_instance	*ui;
	int			nr_cpus;
	int			subbuf_size;
	int			commit_size;	/* of a sub-buffer's header */
	int			tick_ms;
	int			stop[2];	/* readable once stop is asked */
	struct rec_cpu		*cpus;
	char			**files;
};

static void add_bytes(struct rec_cpu *rc, size_t n)
{
	__atomic_add_fetch(&rc->bytes, n, __ATOMIC_RELAXED);
}

/* The thread stops at its first failed write: the main thread polls this */
static void set_error(struct rec_cpu *rc, int err)
{
	__atomic_store_n(&rc->error, err, __ATOMIC_RELAXED);
}

static int write_all(struct rec_cpu *rc, const char *buf, size_t len)
{
	size_t done;
	int ret = ustack_io_write_all(rc->out, buf, len, &done);

	/* what went out counts, also before a failure */
	add_bytes(rc, done);
	if (ret)
		set_error(rc, errno);
	return ret;
}

/* A marker of the CPU's drops (ustack-dropped.c): @n 0 begins a span */
static int write_marker(struct rec_cpu *rc, uint64_t n)
{
	struct ustack_recorder *rec = rc->rec;

	ustack_dropped_marker(rc->mark, rec->subbuf_size, rec->commit_size, n);
	return write_all(rc, rc->mark, rec->subbuf_size);
}

/*
 * After a take of sub-buffers, before they are written: the count of
 * drops is read then, so that a span's begin goes before them. A full
 * buffer drops only while data comes: with none taken and no span open,
 * there is nothing to read.
 */
static int read_dropped(struct rec_cpu *rc, bool taken, bool last)
{
	if (!taken && !rc->dropped.open && !last)
		return 0;
	if (ustack_dropped_read(&rc->dropped, rc->rec->ui, rc->cpu))
		return write_marker(rc, 0);
	return 0;
}

/*
 * After a drain that took everything, the partly filled sub-buffer too:
 * the end of an open span, once the drops stopped
 */
static int close_dropped(struct rec_cpu *rc, bool last)
{
	uint64_t n = ustack_dropped_close(&rc->dropped, true, last);

	return n ? write_marker(rc, n) : 0;
}

/* Files that refuse splice (some network file systems): copy instead. */
static int copy_pipe(struct rec_cpu *rc, size_t len)
{
	ssize_t r;

	while (len) {
		r = read(rc->pipe[0], rc->buf, len < rc->rec->subbuf_size ? len :
			 rc->rec->subbuf_size);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			set_error(rc, r < 0 ? errno : EIO);
			return -1;
		}
		if (write_all(rc, rc->buf, r) < 0)
			return -1;
		len -= r;
	}
	return 0;
}

/* Move @len bytes that sit in the pipe to the file. */
static int empty_pipe(struct rec_cpu *rc, size_t len)
{
	ssize_t w;

	while (len) {
		w = splice(rc->pipe[0], NULL, rc->out, NULL, len, SPLICE_F_MOVE);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EINVAL)
			return copy_pipe(rc, len);
		if (w <= 0) {
			set_error(rc, w < 0 ? errno : EIO);
			return -1;
		}
		add_bytes(rc, w);
		len -= w;
	}
	return 0;
}

/*
 * Every full sub-buffer there is now. Returns 1 if some moved, 0 if none,
 * -1 on a write error. EAGAIN and 0 both mean "nothing now": the second
 * when the writer won the race for the page being read.
 *
 * A splice that did not fill the pipe took every full sub-buffer there
 * was: those that fill from then on wait for the next watermark. Splicing
 * again until EAGAIN chased them one by one while events kept coming: in
 * the VM, two splices per 4 KiB sub-buffer instead of two per watermark.
 */
static int move_full(struct rec_cpu *rc)
{
	bool moved = false;
	ssize_t n;

	for (;;) {
		n = splice(rc->fd, NULL, rc->pipe[1], NULL, rc->pipe_size,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return moved;
		if (read_dropped(rc, true, false) < 0 || empty_pipe(rc, n) < 0)
			return -1;
		moved = true;
		if (n < rc->pipe_size)
			return 1;
	}
}

/*
 * The partly filled sub-buffer, padded to a whole one: at the end, and
 * while a span of drops is open (its end must come after every record
 * written before the drops, which the sub-buffer being written may hold).
 * Returns 0, or -1 on a write error.
 */
static int take_partial(struct rec_cpu *rc, bool last)
{
	int size = rc->rec->subbuf_size;
	ssize_t r;

	for (;;) {
		memset(rc->buf, 0, size);
		r = read(rc->fd, rc->buf, size);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		if (read_dropped(rc, true, last) < 0 || write_all(rc, rc->buf, size) < 0)
			return -1;
	}
}

/*
 * After a drain: how long to nap on the stop pipe before the next one (0:
 * poll the buffer). @streak is the last nap of the naps in a row (0 when
 * none). A poll of the buffer that said readable but left nothing to move
 * starts a nap, twice the last one of the streak, up to the tick; a drain
 * that moved data ends the streak.
 */
static int next_nap(const struct rec_cpu *rc, int *streak, bool napped, int moved,
		    bool readable)
{
	if (moved) {
		*streak = 0;
		return 0;
	}
	if (napped)
		return 0;
	if (!readable) {
		*streak = 0;
		return 0;
	}
	*streak = *streak ? *streak * 2 : IDLE_MS;
	if (*streak > rc->rec->tick_ms)
		*streak = rc->rec->tick_ms;
	return *streak;
}

static void *cpu_thread(void *arg)
{
	struct rec_cpu *rc = arg;
	struct pollfd pfd[2] = {
		{ .fd = rc->fd, .events = POLLIN },
		{ .fd = rc->rec->stop[0], .events = POLLIN },
	};
	int nap_ms = 0, streak = 0, r;
	bool stopping;

	rc->tid = gettid();
	/* Only root may: otherwise the thread keeps the caller's priority. */
	setpriority(PRIO_PROCESS, rc->tid, RECORDER_NICE);
	for (;;) {
		/*
		 * Woken with nothing to move (data, but no full sub-buffer):
		 * the fd would wake us again at once, so wait on the stop pipe.
		 */
		pfd[0].revents = 0;
		if (nap_ms)
			poll(&pfd[1], 1, nap_ms);
		else
			poll(pfd, 2, rc->rec->tick_ms);
		stopping = pfd[1].revents & POLLIN;
		r = move_full(rc);
		if (r < 0 || (rc->dropped.open && take_partial(rc, false) < 0) ||
		    read_dropped(rc, false, false) < 0 || close_dropped(rc, false) < 0)
			return NULL;
		nap_ms = next_nap(rc, &streak, nap_ms, r, pfd[0].revents & POLLIN);
		if (stopping)
			break;
	}
	if (!take_partial(rc, true) && !read_dropped(rc, false, true))
		close_dropped(rc, true);
	return NULL;
}

static int pipe_max_size(void)
{
	int size = PIPE_SIZE_FALLBACK;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "re");

	if (f) {
		if (fscanf(f, "%d", &size) != 1 || size <= 0)
			size = PIPE_SIZE_FALLBACK;
		fclose(f);
	}
	return size;
}

static int open_cpu(struct ustack_recorder *rec, int cpu, const char *prefix)
{
	struct rec_cpu *rc = &rec->cpus[cpu];
	char file[64];

	rc->rec = rec;
	rc->cpu = cpu;
	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	rc->fd = tracefs_instance_file_open(ustack_instance_tracefs(rec->ui), file,
					    O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (rc->fd < 0)
		return -1;
	ustack_instance_register_fd(rec->ui, rc->fd);
	if (pipe2(rc->pipe, O_CLOEXEC) < 0)
		return -1;
	/* A large pipe: one splice moves a whole watermark's worth. */
	fcntl(rc->pipe[1], F_SETPIPE_SZ, pipe_max_size());
	rc->pipe_size = fcntl(rc->pipe[1], F_GETPIPE_SZ);
	if (rc->pipe_size < rec->subbuf_size)
		rc->pipe_size = rec->subbuf_size;
	rc->buf = malloc(rec->subbuf_size);
	rc->mark = malloc(rec->subbuf_size);
	/* Unique: two runs recording to one output must not share them */
	if (!rc->buf || !rc->mark || asprintf(&rec->files[cpu], "%s.cpu%d.XXXXXX", prefix, cpu) < 0) {
		rec->files[cpu] = NULL;
		return -1;
	}
	rc->out = ustack_tempfile_make(&rec->files[cpu]);
	if (rc->out < 0) {
		free(rec->files[cpu]);
		rec->files[cpu] = NULL;
		return -1;
	}
	return 0;
}

/* A failed open: the files made so far go, the caller never saw them */
static void remove_files(struct ustack_recorder *rec)
{
	int cpu;

	for (cpu = 0; rec->files && cpu < rec->nr_cpus; cpu++)
		if (rec->files[cpu])
			ustack_tempfile_remove(rec->files[cpu]);
}

/**
 * ustack_recorder_open - open the per-CPU buffers of @ui and the files
 * @ui: the instance
 * @nr_cpus: CPUs to record
 * @subbuf_size: the ring buffer's sub-buffer size
 * @commit_size: bytes of a sub-buffer's commit word (ustack_dropped_commit_size())
 * @prefix: CPU N goes to "<prefix>.cpuN.XXXXXX", made unique by mkstemp()
 * @tick_us: longest wait between two drains of a CPU
 *
 * Returns NULL with errno set on failure (what was opened is closed).
 */
struct ustack_recorder *ustack_recorder_open(struct ustack_instance *ui, int nr_cpus,
					     int subbuf_size, int commit_size, const char *prefix,
					     unsigned int tick_us)
{
	struct ustack_recorder *rec = calloc(1, sizeof(*rec));
	int cpu, err;

	if (!rec)
		return NULL;
	rec->ui = ui;
	rec->nr_cpus = nr_cpus;
	rec->subbuf_size = subbuf_size;
	rec->commit_size = commit_size;
	rec->tick_ms = tick_us / 1000 ? tick_us / 1000 : 1;
	rec->stop[0] = rec->stop[1] = -1;
	rec->cpus = calloc(nr_cpus, sizeof(*rec->cpus));
	rec->files = calloc(nr_cpus + 1, sizeof(*rec->files));
	if (!rec->cpus || !rec->files)
		goto fail;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		rec->cpus[cpu].fd = rec->cpus[cpu].out = -1;
		rec->cpus[cpu].pipe[0] = rec->cpus[cpu].pipe[1] = -1;
	}
	if (pipe2(rec->stop, O_CLOEXEC | O_NONBLOCK) < 0)
		goto fail;
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (open_cpu(rec, cpu, prefix) < 0)
			goto fail;
	return rec;
 fail:
	err = errno;
	remove_files(rec);
	ustack_recorder_free(rec);
	errno = err;
	return NULL;
}

/**
 * ustack_recorder_start - start one thread per CPU
 * @rec: the recorder
 *
 * The threads block SIGINT, SIGTERM, SIGHUP and SIGCHLD: the main thread
 * gets them. Returns 0, or -1 with errno (threads started are stopped).
 */
int ustack_recorder_start(struct ustack_recorder *rec)
{
	sigset_t set, old;
	int cpu, ret = 0;

	ustack_stopsig_signals(&set);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (cpu = 0; cpu < rec->nr_cpus && !ret; cpu++) {
		ret = pthread_create(&rec->cpus[cpu].thread, NULL, cpu_thread, &rec->cpus[cpu]);
		rec->cpus[cpu].started = !ret;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		ustack_recorder_stop(rec);
		errno = ret;
		return -1;
	}
	/* The caller may want to keep the threads out of the trace. */
	for (cpu = 0; cpu < rec->nr_cpus; cpu++)
		while (!rec->cpus[cpu].tid)
			usleep(1000);
	return 0;
}

pid_t ustack_recorder_tid(const struct ustack_recorder *rec, int cpu)
{
	return cpu < rec->nr_cpus ? rec->cpus[cpu].tid : 0;
}

uint64_t ustack_recorder_bytes(const struct ustack_recorder *rec)
{
	uint64_t sum = 0;
	int cpu;

	for (cpu = 0; cpu < rec->nr_cpus; cpu++)
		sum += __atomic_load_n(&rec->cpus[cpu].bytes, __ATOMIC_RELAXED);
	return sum;
}

/**
 * ustack_recorder_stop - drain every CPU a last time and join the threads
 * @rec: the recorder (may be NULL; a second call does nothing)
 *
 * Turn tracing off first, or the last drain races the writers. Returns 0,
 * or -1 with errno set to the first write error (the run's data is short).
 */
int ustack_recorder_stop(struct ustack_recorder *rec)
{
	int cpu, err = 0;
	char c = 0;

	if (!rec)
		return 0;
	if (rec->stop[1] >= 0 && write(rec->stop[1], &c, 1) < 0 && errno != EAGAIN)
		ustack_warning("stop recorder: %s", strerror(errno));
	for (cpu = 0; cpu < rec->nr_cpus; cpu++) {
		if (rec->cpus[cpu].started)
			pthread_join(rec->cpus[cpu].thread, NULL);
		rec->cpus[cpu].started = false;
		if (!err)
			err = __atomic_load_n(&rec->cpus[cpu].error, __ATOMIC_RELAXED);
	}
	if (!err)
		return 0;
	errno = err;
	return -1;
}

/**
 * ustack_recorder_error - the first failed write so far
 * @rec: the recorder, running or stopped
 *
 * Returns 0, or the errno of the write that stopped a CPU's thread (that
 * CPU is not recorded from then on: the data is incomplete).
 */
int ustack_recorder_error(const struct ustack_recorder *rec)
{
	int cpu, err;

	for (cpu = 0; cpu < rec->nr_cpus; cpu++) {
		err = __atomic_load_n(&rec->cpus[cpu].error, __ATOMIC_RELAXED);
		if (err)
			return err;
	}
	return 0;
}

char * const *ustack_recorder_files(const struct ustack_recorder *rec)
{
	return rec->files;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * ustack_recorder_free - stop, close everything; the files stay on disk
 * @rec: the recorder (may be NULL)
 */
void ustack_recorder_free(struct ustack_recorder *rec)
{
	struct rec_cpu *rc;
	int cpu;

	if (!rec)
		return;
	ustack_recorder_stop(rec);
	for (cpu = 0; rec->cpus && cpu < rec->nr_cpus; cpu++) {
		rc = &rec->cpus[cpu];
		if (rc->fd >= 0)
			ustack_instance_unregister_fd(rec->ui, rc->fd);
		close_fd(&rc->fd);
		close_fd(&rc->out);
		close_fd(&rc->pipe[0]);
		close_fd(&rc->pipe[1]);
		free(rc->buf);
		free(rc->mark);
	}
	for (cpu = 0; rec->files && cpu < rec->nr_cpus; cpu++)
		free(rec->files[cpu]);
	close_fd(&rec->stop[0]);
	close_fd(&rec->stop[1]);
	free(rec->files);
	free(rec->cpus);
	free(rec);
}
