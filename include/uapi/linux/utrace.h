/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/utrace: tracing and controlling user threads from user space.
 *
 * Each open file is one tracer session.  Requests are ioctl()s on the
 * structures below; events are records read() from the file.  See
 * Documentation/userspace-api/utrace.rst.
 */

#ifndef _LINUX_UTRACE_H
#define _LINUX_UTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define UTRACE_API		1

/* Feature bits of struct utrace_api. */
#define UTRACE_FEATURE_NONSTOP		(1ULL << 0) /* non-stopping events */
#define UTRACE_FEATURE_WATCHPOINTS	(1ULL << 1) /* hardware watchpoints */
#define UTRACE_FEATURE_LAUNCH		(1ULL << 2) /* UTRACE_ATTACH_LAUNCH */
#define UTRACE_FEATURE_HOLD		(1ULL << 3) /* UTRACE_CTL_HOLD */
#define UTRACE_FEATURE_SYSCALL_SET	(1ULL << 4) /* UTRACE_IOC_SET_SYSCALLS */
#define UTRACE_FEATURE_EXIT_ARGS	(1ULL << 5) /* exit records have args */
#define UTRACE_FEATURE_LOSSLESS		(1ULL << 6) /* UTRACE_ATTACH_LOSSLESS */
#define UTRACE_FEATURE_SYSCALL_ARCH	(1ULL << 7) /* utrace_syscalls.arch */
#define UTRACE_FEATURE_SIGINFO		(1ULL << 8) /* UTRACE_IOC_*_SIGINFO */
#define UTRACE_FEATURE_PIDFD		(1ULL << 9) /* UTRACE_ATTACH_PIDFD */
#define UTRACE_FEATURE_SECCOMP		(1ULL << 10) /* UTRACE_EV_SECCOMP */
#define UTRACE_FEATURE_SYSCALL_INFO	(1ULL << 11) /* ..._GET_SYSCALL_INFO */
#define UTRACE_FEATURE_OBSERVE		(1ULL << 12) /* UTRACE_ATTACH_OBSERVE */
#define UTRACE_FEATURE_CHILD_PIDFD	(1ULL << 13) /* ..._ATTACH_CHILD_PIDFD */
#define UTRACE_FEATURE_BREAKPOINTS	(1ULL << 14) /* ..._INSERT_BREAKPOINT */
#define UTRACE_FEATURES_ALL		(UTRACE_FEATURE_NONSTOP | \
					 UTRACE_FEATURE_WATCHPOINTS | \
					 UTRACE_FEATURE_LAUNCH | \
					 UTRACE_FEATURE_HOLD | \
					 UTRACE_FEATURE_SYSCALL_SET | \
					 UTRACE_FEATURE_EXIT_ARGS | \
					 UTRACE_FEATURE_LOSSLESS | \
					 UTRACE_FEATURE_SYSCALL_ARCH | \
					 UTRACE_FEATURE_SIGINFO | \
					 UTRACE_FEATURE_PIDFD | \
					 UTRACE_FEATURE_SECCOMP | \
					 UTRACE_FEATURE_SYSCALL_INFO | \
					 UTRACE_FEATURE_OBSERVE | \
					 UTRACE_FEATURE_CHILD_PIDFD | \
					 UTRACE_FEATURE_BREAKPOINTS)

/*
 * Every request structure starts with its size, so that it can grow: the
 * kernel accepts any size from the first published one (the *_SIZE_VER0
 * values) up, provided the bytes it does not know are zero.  Unknown flag
 * bits and nonzero reserved fields are refused with EINVAL.
 */

/**
 * struct utrace_api - version and features handshake, the first request
 * @size:	sizeof(struct utrace_api)
 * @api:	in: %UTRACE_API the caller was built for; out: the kernel's
 * @features:	in: the %UTRACE_FEATURE_* bits the caller needs; out: all
 *		the bits the kernel supports
 * @reserved:	must be zero
 */
struct utrace_api {
	__u32 size;
	__u32 api;
	__u64 features;
	__u64 reserved[2];
};

#define UTRACE_API_SIZE_VER0		32

/* Flags of struct utrace_attach. */
#define UTRACE_ATTACH_GROUP		(1U << 0) /* every thread of the group */
#define UTRACE_ATTACH_CLONES		(1U << 1) /* and new threads, too */
#define UTRACE_ATTACH_CHILDREN		(1U << 2) /* and forked children */
#define UTRACE_ATTACH_STOP		(1U << 3) /* stop the threads now */
#define UTRACE_ATTACH_LAUNCH		(1U << 4) /* self, stop at next exec */
#define UTRACE_ATTACH_LOSSLESS		(1U << 5) /* wait, do not drop */
#define UTRACE_ATTACH_PIDFD		(1U << 6) /* @tid is a pidfd */
#define UTRACE_ATTACH_OBSERVE		(1U << 7) /* watch only, never stop */
#define UTRACE_ATTACH_CHILD_PIDFD	(1U << 8) /* pidfds in clone records */
#define UTRACE_ATTACH_FLAGS		0x1ff

/**
 * struct utrace_attach - attach to a thread or a thread group
 * @size:	sizeof(struct utrace_attach)
 * @flags:	%UTRACE_ATTACH_* bits
 * @tid:	the thread, in the pid namespace of the session's opener;
 *		zero (with %UTRACE_ATTACH_LAUNCH only) for the calling thread;
 *		with %UTRACE_ATTACH_PIDFD, a pidfd: its process's leader
 * @reserved0:	must be zero
 * @events:	the events to report, %UTRACE_EVMASK() bits
 * @nonstop:	the subset of @events that does not stop the thread
 * @id:		out: the session's id of the thread @tid
 * @reserved:	must be zero
 *
 * Threads are named by 64-bit ids, never reused, and unique across
 * sessions: a tid that dies and comes back names another thread, with
 * another id, and an id from another session names nothing in this one.
 *
 * With %UTRACE_ATTACH_OBSERVE the session only watches: every event in
 * @events must be in @nonstop too, and be one of
 * %UTRACE_EVENTS_OBSERVABLE; the threads are never stopped, and may be
 * observed by other sessions and traced by ptrace or a controlling
 * session meanwhile.  A set-user-ID exec gains its privileges as if
 * untraced, and then ends the observation with a %UTRACE_EV_DETACHED
 * record, unless the observer has CAP_SYS_PTRACE.
 */
struct utrace_attach {
	__u32 size;
	__u32 flags;
	__s32 tid;
	__u32 reserved0;
	__u64 events;
	__u64 nonstop;
	__u64 id;
	__u64 reserved[2];
};

#define UTRACE_ATTACH_SIZE_VER0		56

/* Flags shared by the requests that name a thread. */
#define UTRACE_ALL_THREADS		(1U << 0) /* every thread attached */

/**
 * struct utrace_detach - detach from a thread
 * @size:	sizeof(struct utrace_detach)
 * @flags:	%UTRACE_ALL_THREADS or zero
 * @id:		the thread, unless %UTRACE_ALL_THREADS
 * @reserved:	must be zero
 *
 * A stopped thread resumes; a signal it was stopped for is delivered.
 */
struct utrace_detach {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 reserved[2];
};

#define UTRACE_DETACH_SIZE_VER0		32

/**
 * struct utrace_event_mask - change the events a thread reports
 * @size:	sizeof(struct utrace_event_mask)
 * @flags:	%UTRACE_ALL_THREADS or zero
 * @id:		the thread, unless %UTRACE_ALL_THREADS
 * @events:	%UTRACE_EVMASK() bits
 * @nonstop:	the subset of @events that does not stop the thread
 * @reserved:	must be zero
 */
struct utrace_event_mask {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 events;
	__u64 nonstop;
	__u64 reserved[2];
};

#define UTRACE_EVENTS_SIZE_VER0		48

/* Actions of struct utrace_control. */
#define UTRACE_CTL_STOP			1 /* stop at the next safe point */
#define UTRACE_CTL_RESUME		2 /* run */
#define UTRACE_CTL_SINGLESTEP		3 /* run one instruction */
#define UTRACE_CTL_BLOCKSTEP		4 /* run to the next branch */
#define UTRACE_CTL_INTERRUPT		5 /* stop, leaving a blocking call */
#define UTRACE_CTL_HOLD			6 /* stop; hold one asleep where it is */

/* Flags of struct utrace_control, besides %UTRACE_ALL_THREADS. */
#define UTRACE_CTL_SIGNAL		(1U << 1) /* @signal says what to deliver */

/**
 * struct utrace_control - stop, resume or step threads
 * @size:	sizeof(struct utrace_control)
 * @flags:	%UTRACE_ALL_THREADS, %UTRACE_CTL_SIGNAL
 * @id:		the thread, unless %UTRACE_ALL_THREADS
 * @action:	%UTRACE_CTL_*
 * @signal:	with %UTRACE_CTL_SIGNAL, for a thread stopped at a signal:
 *		the signal to deliver instead (zero to suppress it);
 *		without, the signal it stopped for is delivered
 * @reserved:	must be zero
 *
 * A stop takes effect when the thread next passes a safe point on its way
 * to user mode, and is reported by a %UTRACE_EV_STOP record; one blocked
 * in a system call gets there only when the call returns, unless the
 * action is %UTRACE_CTL_INTERRUPT.  %UTRACE_CTL_HOLD interrupts a thread
 * that runs, but leaves one asleep in the kernel asleep: the ioctl then
 * returns 1, and the thread runs no user code before its stop (which it
 * takes, with its record, if it wakes); nor does a thread it creates
 * meanwhile (%UTRACE_CLONE_STOPPED).  Not with %UTRACE_ALL_THREADS.
 */
struct utrace_control {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u32 action;
	__s32 signal;
	__u64 reserved[2];
};

#define UTRACE_CONTROL_SIZE_VER0	40

/**
 * struct utrace_regset - read or write a register set of a stopped thread
 * @size:	sizeof(struct utrace_regset)
 * @flags:	zero
 * @id:		the thread
 * @note_type:	the ELF note type naming the set: NT_PRSTATUS,
 *		NT_PRFPREG, NT_X86_XSTATE...
 * @reserved0:	must be zero
 * @data:	the user buffer
 * @len:	in: the buffer's length, a whole number of the set's
 *		elements (as for PTRACE_GETREGSET); out: the bytes
 *		transferred
 * @reserved:	must be zero
 *
 * The layout is that of the ELF core note, in the thread's own view: a
 * 32-bit thread has the 32-bit layouts.  Changes take effect when the
 * thread resumes.
 */
struct utrace_regset {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u32 note_type;
	__u32 reserved0;
	__aligned_u64 data;
	__u64 len;
	__u64 reserved[2];
};

#define UTRACE_REGSET_SIZE_VER0		56

/**
 * struct utrace_mem - read or write the memory of a stopped thread
 * @size:	sizeof(struct utrace_mem)
 * @flags:	zero
 * @id:		the thread
 * @addr:	the address in the thread's address space
 * @data:	the user buffer
 * @len:	in: the length; out: the bytes transferred, which is less
 *		than asked when an unmapped page, or the thread's death,
 *		stops the transfer
 * @reserved:	must be zero
 *
 * Like /proc/PID/mem, writes reach read-only mappings (a breakpoint can
 * be written into program text).
 */
struct utrace_mem {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 addr;
	__aligned_u64 data;
	__u64 len;
	__u64 reserved[2];
};

#define UTRACE_MEM_SIZE_VER0		56

/* Kinds of struct utrace_watch. */
#define UTRACE_WATCH_WRITE		1
#define UTRACE_WATCH_READWRITE		2

/**
 * struct utrace_watch - set or clear a hardware watchpoint
 * @size:	sizeof(struct utrace_watch)
 * @flags:	zero
 * @id:		the thread
 * @addr:	the watched address, aligned to @len
 * @len:	1, 2, 4 or 8
 * @kind:	%UTRACE_WATCH_WRITE or %UTRACE_WATCH_READWRITE
 * @slot:	out of SET_WATCH, in for CLEAR_WATCH: the watchpoint's
 *		number, which %UTRACE_EV_WATCHPOINT records carry
 * @reserved0:	must be zero
 * @reserved:	must be zero
 */
struct utrace_watch {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 addr;
	__u32 len;
	__u32 kind;
	__u32 slot;
	__u32 reserved0;
	__u64 reserved[2];
};

#define UTRACE_WATCH_SIZE_VER0		56

/* The most system call numbers struct utrace_syscalls can name. */
#define UTRACE_SYSCALLS_MAX		1024

/**
 * struct utrace_syscalls - choose the system calls a thread reports
 * @size:	sizeof(struct utrace_syscalls)
 * @flags:	%UTRACE_ALL_THREADS or zero
 * @id:		the thread, unless %UTRACE_ALL_THREADS
 * @set:	a user pointer to @nbits / 64 __u64 words: bit N % 64 of
 *		word N / 64 set reports the system call numbered N
 * @nbits:	the bits at @set, a multiple of 64 up to
 *		%UTRACE_SYSCALLS_MAX; zero (and @set zero) reports every call
 * @arch:	the AUDIT_ARCH_* value of the ABI @set is numbered for, as
 *		records carry it: a call of another ABI is reported whatever
 *		its number; or zero, for each call's number in its own ABI
 * @reserved:	must be zero
 *
 * The thread's %UTRACE_EV_SYSCALL_ENTRY and %UTRACE_EV_SYSCALL_EXIT
 * events, as its masks select them, are reported for the calls of the
 * set only, by the number a record's @nr would carry.  A call numbered
 * @nbits or more is reported; a negative number (the exit of
 * rt_sigreturn(), which leaves -1) is not.
 */
struct utrace_syscalls {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 set;
	__u32 nbits;
	__u32 arch;
	__u64 reserved[2];
};

#define UTRACE_SYSCALLS_SIZE_VER0	48

/**
 * struct utrace_siginfo - read or change the siginfo of a thread stopped
 *	at a signal
 * @size:	sizeof(struct utrace_siginfo)
 * @flags:	zero
 * @id:		the thread
 * @data:	the user buffer, a siginfo_t
 * @len:	in: the buffer's length, at least sizeof(siginfo_t);
 *		out: the bytes transferred, sizeof(siginfo_t)
 * @reserved:	must be zero
 *
 * The siginfo is that of the signal the thread is stopped for, at a
 * stopping %UTRACE_EV_SIGNAL record, in the caller's siginfo_t layout as
 * PTRACE_GETSIGINFO gives it.  A change is what the thread gets when it
 * resumes: %UTRACE_IOC_CONTROL without %UTRACE_CTL_SIGNAL, and a detach,
 * deliver the signal the siginfo's si_signo names, with that siginfo; with
 * %UTRACE_CTL_SIGNAL, the siginfo goes with the signal named if it is
 * that one.
 */
struct utrace_siginfo {
	__u32 size;
	__u32 flags;
	__u64 id;
	__aligned_u64 data;
	__u64 len;
	__u64 reserved[2];
};

#define UTRACE_SIGINFO_SIZE_VER0	48

/* What a thread stopped at, in struct utrace_syscall_info. */
#define UTRACE_SYSCALL_INFO_NONE	0 /* no system call stop */
#define UTRACE_SYSCALL_INFO_ENTRY	1 /* UTRACE_EV_SYSCALL_ENTRY */
#define UTRACE_SYSCALL_INFO_EXIT	2 /* UTRACE_EV_SYSCALL_EXIT */
#define UTRACE_SYSCALL_INFO_SECCOMP	3 /* UTRACE_EV_SECCOMP */

/**
 * struct utrace_syscall_info - the system call a stopped thread is at
 * @size:	sizeof(struct utrace_syscall_info)
 * @flags:	zero
 * @id:		the thread
 * @op:		out: %UTRACE_SYSCALL_INFO_*, the kind of the stopping record
 *		the thread is stopped at: a system call's entry or exit, a
 *		seccomp stop, or %UTRACE_SYSCALL_INFO_NONE for any other
 * @arch:	out: the AUDIT_ARCH_* value of the thread's system calls
 * @instruction_pointer: out: the thread's pc
 * @stack_pointer: out: its user stack pointer
 * @nr:		out, entry and seccomp: the system call's number
 * @args:	out, entry and seccomp: its arguments
 * @rval:	out, exit: its result, or a negative errno
 * @is_error:	out, exit: 1 if @rval is an error, else 0
 * @ret_data:	out, seccomp: the %SECCOMP_RET_DATA of the filter's verdict
 * @reserved:	must be zero
 *
 * As PTRACE_GET_SYSCALL_INFO tells it, from the thread's registers as
 * they are now (the tracer may have changed them since the record); the
 * fields of other kinds of stops are zero.
 */
struct utrace_syscall_info {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u32 op;
	__u32 arch;
	__u64 instruction_pointer;
	__u64 stack_pointer;
	__s64 nr;
	__u64 args[6];
	__s64 rval;
	__u32 is_error;
	__u32 ret_data;
	__u64 reserved[2];
};

#define UTRACE_SYSCALL_INFO_SIZE_VER0	128

/**
 * struct utrace_breakpoint - insert or remove a breakpoint
 * @size:	sizeof(struct utrace_breakpoint)
 * @flags:	zero
 * @id:		a thread of the process; to remove by @handle: zero
 * @addr:	the breakpoint's address; to remove by @handle: zero
 * @handle:	out of INSERT_BREAKPOINT: the breakpoint's number in the
 *		session, which its %UTRACE_EV_BREAKPOINT_HIT records carry;
 *		in for REMOVE_BREAKPOINT, or zero to remove the breakpoint
 *		at @addr in the process of thread @id
 * @orig:	out of INSERT_BREAKPOINT: the bytes at @addr as the process had
 *		them just before the breakpoint went in (zero past the end of
 *		the mapping), for a debugger to show in its place; zero in
 *		input
 * @reserved:	must be zero
 *
 * The breakpoint is a uprobe at the file and offset mapped at @addr, in
 * the process of thread @id alone: another process mapping the file, or
 * another session, never sees it.  @addr must be in a private, executable
 * and unwritable mapping of a file: EFAULT if nothing is mapped there,
 * ENXIO for any other mapping; EEXIST if the session has a breakpoint
 * there already; EOPNOTSUPP for an instruction uprobes cannot step out of
 * line (a breakpoint instruction written there by another debugger, say).
 *
 * A thread of the session that hits the breakpoint stops, with a
 * %UTRACE_EV_BREAKPOINT_HIT record, as if before the instruction: its pc
 * is @addr.  No other thread stops with it.  When it is resumed, it runs
 * the instruction, out of line (a step ends after it); if the tracer moved
 * its pc meanwhile, it runs from there.  Threads the session does not
 * trace, and a vfork child, run through the breakpoint unreported.  A
 * followed fork child has copies of the parent's breakpoints, with
 * handles of their own, which its hits show, and which removal by address
 * needs not know; an exec removes a process's breakpoints, as do its
 * death and the end of the session.  Memory reads show the breakpoint
 * instruction at @addr.  REMOVE_BREAKPOINT fails with ENOENT for no such
 * breakpoint, and ESRCH for no thread @id.
 */
struct utrace_breakpoint {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 addr;
	__u64 handle;
	__u8 orig[8];
	__u64 reserved[3];
};

#define UTRACE_BREAKPOINT_SIZE_VER0	64

#define UTRACE_IOC_MAGIC		0xB8
#define UTRACE_IOC_API		_IOWR(UTRACE_IOC_MAGIC, 0x00, struct utrace_api)
#define UTRACE_IOC_ATTACH	_IOWR(UTRACE_IOC_MAGIC, 0x01, struct utrace_attach)
#define UTRACE_IOC_DETACH	_IOW(UTRACE_IOC_MAGIC, 0x02, struct utrace_detach)
#define UTRACE_IOC_SET_EVENTS	_IOW(UTRACE_IOC_MAGIC, 0x03, struct utrace_event_mask)
#define UTRACE_IOC_CONTROL	_IOW(UTRACE_IOC_MAGIC, 0x04, struct utrace_control)
#define UTRACE_IOC_GET_REGSET	_IOWR(UTRACE_IOC_MAGIC, 0x05, struct utrace_regset)
#define UTRACE_IOC_SET_REGSET	_IOWR(UTRACE_IOC_MAGIC, 0x06, struct utrace_regset)
#define UTRACE_IOC_READ_MEM	_IOWR(UTRACE_IOC_MAGIC, 0x07, struct utrace_mem)
#define UTRACE_IOC_WRITE_MEM	_IOWR(UTRACE_IOC_MAGIC, 0x08, struct utrace_mem)
#define UTRACE_IOC_SET_WATCH	_IOWR(UTRACE_IOC_MAGIC, 0x09, struct utrace_watch)
#define UTRACE_IOC_CLEAR_WATCH	_IOW(UTRACE_IOC_MAGIC, 0x0a, struct utrace_watch)
#define UTRACE_IOC_SET_SYSCALLS	_IOW(UTRACE_IOC_MAGIC, 0x0b, struct utrace_syscalls)
#define UTRACE_IOC_GET_SIGINFO	_IOWR(UTRACE_IOC_MAGIC, 0x0c, struct utrace_siginfo)
#define UTRACE_IOC_SET_SIGINFO	_IOWR(UTRACE_IOC_MAGIC, 0x0d, struct utrace_siginfo)
#define UTRACE_IOC_GET_SYSCALL_INFO \
	_IOWR(UTRACE_IOC_MAGIC, 0x0e, struct utrace_syscall_info)
#define UTRACE_IOC_INSERT_BREAKPOINT \
	_IOWR(UTRACE_IOC_MAGIC, 0x0f, struct utrace_breakpoint)
#define UTRACE_IOC_REMOVE_BREAKPOINT \
	_IOW(UTRACE_IOC_MAGIC, 0x10, struct utrace_breakpoint)

/*
 * Event records.  read() returns whole records, each starting with a
 * struct utrace_event_header whose @size covers the header and the body
 * that follows it, a multiple of 8.  Record types double as event bits.
 */
#define UTRACE_EV_LOST			0 /* non-stopping events dropped */
#define UTRACE_EV_STOP			1 /* a requested stop took effect */
#define UTRACE_EV_EXEC			2 /* an exec completed */
#define UTRACE_EV_CLONE			3 /* a thread or process was created */
#define UTRACE_EV_EXIT			4 /* the thread is exiting */
#define UTRACE_EV_DEATH			5 /* the thread died: its last record */
#define UTRACE_EV_SYSCALL_ENTRY		6
#define UTRACE_EV_SYSCALL_EXIT		7
#define UTRACE_EV_SIGNAL		8 /* a signal is about to be delivered */
#define UTRACE_EV_JCTL			9 /* job control stop or continue */
#define UTRACE_EV_STEP			10 /* a step ended */
#define UTRACE_EV_BREAKPOINT		11 /* a breakpoint instruction trapped */
#define UTRACE_EV_WATCHPOINT		12 /* a watchpoint triggered */
#define UTRACE_EV_SECCOMP		13 /* SECCOMP_RET_TRACE for a call */
#define UTRACE_EV_DETACHED		14 /* the kernel ended the tracing */
#define UTRACE_EV_BREAKPOINT_HIT	15 /* an inserted breakpoint was hit */
#define UTRACE_EV_MAX			15

#define UTRACE_EVMASK(type)		(1ULL << (type))
/* The events struct utrace_attach and struct utrace_event_mask can select. */
#define UTRACE_EVENTS_SELECTABLE	(UTRACE_EVMASK(UTRACE_EV_EXEC) | \
					 UTRACE_EVMASK(UTRACE_EV_CLONE) | \
					 UTRACE_EVMASK(UTRACE_EV_EXIT) | \
					 UTRACE_EVMASK(UTRACE_EV_DEATH) | \
					 UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) | \
					 UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) | \
					 UTRACE_EVMASK(UTRACE_EV_SIGNAL) | \
					 UTRACE_EVMASK(UTRACE_EV_JCTL) | \
					 UTRACE_EVMASK(UTRACE_EV_BREAKPOINT) | \
					 UTRACE_EVMASK(UTRACE_EV_WATCHPOINT) | \
					 UTRACE_EVMASK(UTRACE_EV_SECCOMP))
/* Those an observer (%UTRACE_ATTACH_OBSERVE) can select. */
#define UTRACE_EVENTS_OBSERVABLE	(UTRACE_EVMASK(UTRACE_EV_EXEC) | \
					 UTRACE_EVMASK(UTRACE_EV_CLONE) | \
					 UTRACE_EVMASK(UTRACE_EV_EXIT) | \
					 UTRACE_EVMASK(UTRACE_EV_DEATH) | \
					 UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) | \
					 UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) | \
					 UTRACE_EVMASK(UTRACE_EV_SIGNAL) | \
					 UTRACE_EVMASK(UTRACE_EV_JCTL))

/* Flags of struct utrace_event_header. */
#define UTRACE_EVF_STOPPED		(1U << 0) /* the thread waits for us */

/**
 * struct utrace_event_header - the start of every event record
 * @size:	the whole record's size in bytes
 * @type:	%UTRACE_EV_*
 * @flags:	%UTRACE_EVF_*
 * @seq:	the record's number in the session, from 1, without gaps
 *		(but for those a %UTRACE_EV_LOST record counts)
 * @id:		the thread's id in the session
 * @tid:	the thread's tid in the tracer's pid namespace
 * @tgid:	its thread group's id, in the same namespace
 * @time_ns:	CLOCK_MONOTONIC when the event happened
 */
struct utrace_event_header {
	__u32 size;
	__u16 type;
	__u16 flags;
	__u64 seq;
	__u64 id;
	__s32 tid;
	__s32 tgid;
	__u64 time_ns;
};

/* UTRACE_EV_LOST */
struct utrace_event_lost {
	__u64 count;		/* non-stopping records dropped */
};

/* UTRACE_EV_STOP, UTRACE_EV_STEP, UTRACE_EV_BREAKPOINT */
struct utrace_event_pc {
	__u64 pc;		/* breakpoint: the breakpoint's address */
};

/* UTRACE_EV_EXEC; the file name follows, NUL-terminated and padded */
struct utrace_event_exec {
	__s32 old_tid;		/* tid before the exec (non-leader exec) */
	__u32 name_len;		/* strlen() of the file name */
};

/*
 * UTRACE_EV_CLONE.  With %UTRACE_ATTACH_CHILD_PIDFD, the record of a new
 * process (not a thread) carries a pidfd for it, made in the reader's
 * file table by the read() that hands the record out (O_CLOEXEC): it
 * names that process whatever becomes of its pid.  Else, or for a thread,
 * @child_pidfd is -1; -ESRCH if the process was gone by the read, or
 * another negative errno if the pidfd could not be made.
 */
struct utrace_event_clone {
	__u64 flags;		/* CLONE_* flags, with the exit signal */
	__u64 child_id;		/* the child's id, if it was attached, or 0 */
	__s32 child_tid;
	__u32 child_flags;	/* UTRACE_CLONE_* */
	__s32 child_pidfd;
	__u32 reserved;
};

/*
 * The parent had a stop pending (requested, not taken yet): the attached
 * child has it too, and stops before it runs any user code, with a
 * %UTRACE_EV_STOP record of its own.
 */
#define UTRACE_CLONE_STOPPED		(1U << 0)

/*
 * UTRACE_EV_EXIT, UTRACE_EV_DEATH.  An exit record of a thread whose group
 * is exiting (exit_group(), a fatal signal) or exec'ing never stops the
 * thread, whatever the mask says: its %UTRACE_EVF_STOPPED is clear.
 */
struct utrace_event_exit {
	__s64 code;		/* wait status */
};

/*
 * UTRACE_EV_SYSCALL_ENTRY, UTRACE_EV_SYSCALL_EXIT.  An exit record's
 * @args are the argument registers as the exit finds them: the entry's,
 * but for a call that replaces the thread's registers (execve(),
 * rt_sigreturn()) or a tracer that changed them in between.
 */
struct utrace_event_syscall {
	__s64 nr;
	__u64 args[6];
	__s64 ret;		/* exit only */
	__u32 arch;		/* AUDIT_ARCH_* */
	__u32 reserved;
};

/* UTRACE_EV_SIGNAL */
struct utrace_event_signal {
	__s32 signo;
	__s32 code;
	__s32 errno_;
	__s32 pid;		/* sender, when the siginfo has one */
	__u32 uid;
	__u32 disposition;	/* 0 default, 1 ignored, 2 handler */
	__u64 addr;		/* fault address, when the siginfo has one */
};

/* UTRACE_EV_JCTL */
struct utrace_event_jctl {
	__s32 type;		/* CLD_STOPPED or CLD_CONTINUED */
	__s32 notify;
};

/* UTRACE_EV_WATCHPOINT */
struct utrace_event_watch {
	__u64 pc;
	__u64 addr;		/* the watched address */
	__u32 slot;
	__u32 reserved;
};

/*
 * UTRACE_EV_SECCOMP: a seccomp filter returned SECCOMP_RET_TRACE for the
 * system call about to be made.  Selecting the event lets the call go on
 * (without a tracer it fails with ENOSYS), as PTRACE_O_TRACESECCOMP does.
 */
struct utrace_event_seccomp {
	__s64 nr;
	__u64 args[6];
	__u32 arch;		/* AUDIT_ARCH_* */
	__u32 data;		/* SECCOMP_RET_DATA of the filter's verdict */
};

/*
 * UTRACE_EV_BREAKPOINT_HIT: a breakpoint of UTRACE_IOC_INSERT_BREAKPOINT;
 * always reported, and always stopping.
 */
struct utrace_event_breakpoint {
	__u64 pc;		/* the breakpoint's address */
	__u64 handle;
};

/*
 * UTRACE_EV_DETACHED: the thread's last record in the session, which no
 * longer traces it: an observer's thread exec'd a program that gained
 * privileges.  Always sent, selected or not.
 */
#define UTRACE_DETACHED_PRIVILEGED_EXEC	1

struct utrace_event_detached {
	__u32 reason;		/* UTRACE_DETACHED_* */
	__u32 reserved;
};

#endif /* _LINUX_UTRACE_H */
