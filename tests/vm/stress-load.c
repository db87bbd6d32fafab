// SPDX-License-Identifier: GPL-2.0
/*
 * stress-load: the user-space traffic of tests/vm/stress.
 *
 *   stress-load forks SECS [PAR]    fork/exec/exit storm: PAR children at
 *                                   a time, each doing one of the endings
 *                                   listed at fork_child()
 *   stress-load threads SECS [PAR]  thread storm: batches of up to PAR
 *                                   short-lived threads doing syscalls
 *   stress-load signals SECS        two processes (and a thread) signalling
 *                                   themselves and each other
 *   stress-load sleepers SECS [N]   N threads that spend their time inside
 *                                   system calls (nanosleep, poll, read)
 *   stress-load leaf [N]            getppid(2) N times through a chain of
 *                                   calls, then exit (the exec target)
 *
 * Each mode runs until SECS have passed and prints "action count" lines,
 * one per action, which the script adds up.  Errors that the load itself
 * may cause (EAGAIN from fork under memory pressure) are counted, not
 * fatal; anything else unexpected exits 1.
 *
 * Why these shapes: the deferred unwinder requests an unwind in the
 * kernel entry of an event and runs it on the return to user space, so
 * the interesting moments are the ones where that return does not come
 * the usual way: exit and exit_group with other threads in system calls,
 * execve from a multithreaded process (de_thread kills the others), a
 * SIGKILL while asleep in a system call, signal delivery and job-control
 * stops on the way out, and events raised from interrupts (timers).
 * Built with frame pointers so the unwinder walks real chains, of varying
 * depth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#define NOINLINE __attribute__((noinline))

static const char *self;
static double deadline;

/* Counters; the forks mode's children never report back, only the parent counts */
enum {
	C_FORK, C_EXEC, C_EXIT, C_KILLED, C_EXEC_THREADED, C_EXIT_THREADED,
	C_THREAD, C_SIG_SENT, C_SIG_RECEIVED, C_STOP_CONT, C_TIMER_SIG,
	C_SLEEP_CALL, C_FORK_EAGAIN, C_MAX
};
static const char *const counter_name[C_MAX] = {
	"fork", "exec", "exit", "killed-in-syscall", "exec-multithreaded",
	"exit-multithreaded", "thread", "signal-sent", "signal-received",
	"stop-cont", "timer-signal", "syscall-sleep", "fork-eagain",
};
static unsigned long counters[C_MAX];
static volatile sig_atomic_t received;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int over(void)
{
	return now() >= deadline;
}

static void die(const char *what)
{
	fprintf(stderr, "stress-load: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A per-thread generator: rand() would serialize the threads on a lock */
static unsigned int rnd(unsigned int *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 16;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* getppid(2) without libc, so the leaf frame has a frame pointer */
static NOINLINE long raw_getppid(void)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
		     : "rcx", "r11", "memory");
	return ret;
}

/*
 * DEPTH frames of real calls, then one system call of kind KIND: the
 * stacks the unwinder walks differ in depth from one call to the next.
 */
static NOINLINE long deep_call(unsigned int depth, int kind)
{
	long ret;

	if (depth > 0) {
		ret = deep_call(depth - 1, kind);
		asm volatile("" ::: "memory");	/* not a tail call */
		return ret;
	}
	switch (kind) {
	case 0:
		return raw_getppid();
	case 1:
		return sched_yield();
	case 2:
		sleep_us(500);
		return 0;
	default:
		return syscall(SYS_getpid);
	}
}

static void print_counters(void)
{
	for (int i = 0; i < C_MAX; i++)
		if (counters[i])
			printf("%s %lu\n", counter_name[i], counters[i]);
	fflush(stdout);
}

/* --- leaf: the exec target -------------------------------------------- */

static int leaf(int n)
{
	for (int i = 0; i < n; i++)
		deep_call(3 + i, 0);
	return 0;
}

/* --- forks -------------------------------------------------------------- */

/* A thread that sits in system calls until the process goes away */
static void *sitter(void *arg)
{
	unsigned int seed = (unsigned long)arg;

	for (;;)
		deep_call(rnd(&seed) % 20, rnd(&seed) % 3);
	return NULL;
}

static void start_sitters(int n)
{
	pthread_t t;

	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, sitter, (void *)(long)(getpid() + i)) == 0)
			pthread_detach(t);
}

/*
 * The child's ending, chosen by the parent (so that it can count it):
 *   0 exec stress-load leaf            plain exec storm
 *   1 syscalls, then _exit             plain exit
 *   2 threads in syscalls, then exec   de_thread with unwinds pending
 *   3 threads in syscalls, then exit   exit_group with unwinds pending
 *   4 nanosleep until SIGKILLed        killed inside a system call
 */
static NOINLINE void fork_child(int how, unsigned int seed)
{
	char arg[16];

	switch (how) {
	case 0:
	case 2:
		if (how == 2) {
			start_sitters(3);
			sleep_us(2000);
		}
		snprintf(arg, sizeof(arg), "%u", 1 + seed % 4);
		execl(self, self, "leaf", arg, (char *)NULL);
		_exit(127);
	case 1:
		for (int i = 0; i < 4; i++)
			deep_call(rnd(&seed) % 40, i & 1);
		_exit(0);
	case 3:
		start_sitters(4);
		sleep_us(3000);
		exit(0);
	default:
		for (;;)
			deep_call(rnd(&seed) % 10, 2);
	}
}

static const int how_counter[] = {
	C_EXEC, C_EXIT, C_EXEC_THREADED, C_EXIT_THREADED, C_KILLED,
};

static int forks(int par)
{
	unsigned int seed = getpid();
	pid_t kids[64];
	int n = 0;

	if (par > 64)
		par = 64;
	while (!over()) {
		while (n < par) {
			int how = rnd(&seed) % 5;
			pid_t pid = fork();

			if (pid < 0) {
				if (errno != EAGAIN && errno != ENOMEM)
					die("fork");
				counters[C_FORK_EAGAIN]++;
				break;
			}
			if (pid == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				fork_child(how, rnd(&seed));
			}
			counters[C_FORK]++;
			counters[how_counter[how]]++;
			kids[n++] = pid;
			if (how == 4) {
				/* Let it get into its sleep, then kill it there */
				sleep_us(1000 + rnd(&seed) % 4000);
				kill(pid, SIGKILL);
			}
		}
		/* Reap one (any), and drop it from the list */
		pid_t pid = wait(NULL);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				die("wait");
			/* No child at all: every fork failed, try again */
			sleep_us(10000);
			continue;
		}
		for (int i = 0; i < n; i++)
			if (kids[i] == pid) {
				kids[i] = kids[--n];
				break;
			}
	}
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}

/* --- threads ------------------------------------------------------------ */

static void *short_thread(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	int calls = 1 + rnd(&seed) % 8;

	for (int i = 0; i < calls; i++)
		deep_call(rnd(&seed) % 60, rnd(&seed) % 4);
	if (rnd(&seed) % 4 == 0)
		pthread_exit(NULL);
	return NULL;
}

static int threads(int par)
{
	unsigned int seed = getpid();
	pthread_t t[64];

	if (par > 64)
		par = 64;
	while (!over()) {
		int n = 1 + rnd(&seed) % par, made = 0;

		for (int i = 0; i < n; i++) {
			if (pthread_create(&t[made], NULL, short_thread,
					   (void *)(unsigned long)rnd(&seed)) != 0)
				break;
			made++;
		}
		counters[C_THREAD] += made;
		for (int i = 0; i < made; i++)
			pthread_join(t[i], NULL);
	}
	return 0;
}

/* --- signals ------------------------------------------------------------ */

static void on_signal(int sig)
{
	(void)sig;
	received++;
	/* A system call from the handler: a stack through the signal frame */
	raw_getppid();
}

static void *signalled_thread(void *arg)
{
	(void)arg;
	for (;;)
		deep_call(5, 2);
	return NULL;
}

/*
 * Both processes run this: raise(), kill() of the partner, tgkill() of
 * our own thread (pthread_kill, a tgkill), and SIGALRM from an interval timer (generated in
 * interrupt context).  The parent also stops and continues the child,
 * so the child is stopped on its way back to user space.
 */
static void signal_loop(pid_t partner, int parent)
{
	struct itimerval it = { { 0, 3000 }, { 0, 3000 } };
	struct sigaction sa;
	unsigned int seed = getpid();
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (pthread_create(&t, NULL, signalled_thread, NULL) != 0)
		die("pthread_create");
	setitimer(ITIMER_REAL, &it, NULL);

	while (!over()) {
		switch (rnd(&seed) % 4) {
		case 0:
			raise(SIGUSR1);
			counters[C_SIG_SENT]++;
			break;
		case 1:
			if (kill(partner, SIGUSR2) == 0)
				counters[C_SIG_SENT]++;
			break;
		case 2:
			if (pthread_kill(t, SIGUSR1) == 0)
				counters[C_SIG_SENT]++;
			break;
		default:
			if (parent && kill(partner, SIGSTOP) == 0) {
				sleep_us(500);
				kill(partner, SIGCONT);
				counters[C_STOP_CONT]++;
			}
			break;
		}
		deep_call(rnd(&seed) % 30, rnd(&seed) % 3);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

static int signals(void)
{
	pid_t parent = getpid(), child;
	int status;

	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal_loop(parent, 0);
		/* The parent counts: its counters are the ones printed */
		_exit(0);
	}
	signal_loop(child, 1);
	/* Wake the child if it was left stopped, then collect it */
	kill(child, SIGCONT);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	counters[C_SIG_RECEIVED] = received;
	return 0;
}

/* --- sleepers ------------------------------------------------------------ */

static int pipefd[2];

static void *sleeper(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	unsigned long *n = calloc(1, sizeof(*n));
	char c;

	if (!n)
		return NULL;
	while (!over()) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };

		switch (rnd(&seed) % 3) {
		case 0:
			deep_call(rnd(&seed) % 30, 2);
			break;
		case 1:
			/* Nobody writes: a 5-30 ms sleep in poll */
			poll(&p, 1, 5 + rnd(&seed) % 25);
			break;
		default:
			/* Non-blocking read of the empty pipe, then a sleep */
			if (read(pipefd[0], &c, 1) < 0 && errno != EAGAIN)
				break;
			sleep_us(2000 + rnd(&seed) % 20000);
			break;
		}
		(*n)++;
	}
	return n;
}

static int sleepers(int n)
{
	pthread_t t[64];
	int made = 0;

	if (n > 64)
		n = 64;
	if (pipe2(pipefd, O_NONBLOCK) < 0)
		die("pipe");
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[made], NULL, sleeper, (void *)(unsigned long)(i + 1)) == 0)
			made++;
	for (int i = 0; i < made; i++) {
		void *r;

		pthread_join(t[i], &r);
		if (r)
			counters[C_SLEEP_CALL] += *(unsigned long *)r;
		free(r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double secs = argc > 2 ? atof(argv[2]) : 0;
	int arg3 = argc > 3 ? atoi(argv[3]) : 0;
	int ret;

	self = "/proc/self/exe";
	if (!strcmp(mode, "leaf"))
		return leaf(argc > 2 ? atoi(argv[2]) : 1);

	/* The exec target must survive our own exec of it: name it by path */
	self = realpath("/proc/self/exe", NULL);
	if (!self)
		die("realpath");
	deadline = now() + secs;
	if (!strcmp(mode, "forks"))
		ret = forks(arg3 > 0 ? arg3 : 4);
	else if (!strcmp(mode, "threads"))
		ret = threads(arg3 > 0 ? arg3 : 8);
	else if (!strcmp(mode, "signals"))
		ret = signals();
	else if (!strcmp(mode, "sleepers"))
		ret = sleepers(arg3 > 0 ? arg3 : 6);
	else {
		fprintf(stderr, "usage: stress-load forks|threads|signals|sleepers SECS [N] | leaf [N]\n");
		return 2;
	}
	print_counters();
	return ret;
}
