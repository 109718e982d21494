#!/usr/bin/env python3
"""Makes a process stopped in a system call make others of the test's
choosing, from its own side, as if its own code had: ptrace(2) seizes and
interrupts it, each call runs at the syscall instruction it stopped at,
with the arguments in its registers and strings on its stack, and its
registers are put back before it goes on (the interrupted call restarts).
For a confined step that reads what a target sends: what a flaw in it
could do (tests/front/egresschain.bats). x86_64 only; needs root.

    inject.py PID CALL...

CALL is open:PATH (openat(2) read-only, closed again), create:PATH
(openat(2) O_CREAT|O_WRONLY), exec:PATH (execve(2)) or
connect:ADDR:PORT (a TCP socket(2) and connect(2) to an IPv4 address).
One line a CALL: "CALL ok" or "CALL ERRNO-NAME"."""
import ctypes
import errno
import os
import socket
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
SEIZE, INTERRUPT, GETREGS, SETREGS, SINGLESTEP, DETACH, PEEKTEXT = \
    0x4206, 0x4207, 12, 13, 9, 17, 1
NAMES = ["r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx",
         "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base",
         "gs_base", "ds", "es", "fs", "gs"]


class Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in NAMES]


def pt(req, pid, addr=0, data=0):
    r = libc.ptrace(req, pid, ctypes.c_void_p(addr), ctypes.c_void_p(data))
    if r == -1 and ctypes.get_errno():
        raise OSError(ctypes.get_errno(), "ptrace %d" % req)
    return r


def stopped(pid):
    _, st = os.waitpid(pid, 0x40000000)  # __WALL
    if not os.WIFSTOPPED(st):
        print("the process ended: %s" % (("killed by signal %d" % os.WTERMSIG(st))
              if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st)))
        sys.exit(1)


pid = int(sys.argv[1])
pt(SEIZE, pid)
pt(INTERRUPT, pid)
stopped(pid)
saved = Regs()
pt(GETREGS, pid, 0, ctypes.addressof(saved))
insn = saved.rip - 2
word = pt(PEEKTEXT, pid, insn) & 0xffff
if saved.orig_rax >= 1 << 63 or word != 0x050f:
    sys.exit("inject.py: %d is not stopped in a system call" % pid)
scratch = (saved.rsp - 4096) & ~15   # below the red zone, a page its calls used


def call(nr, *args, data=b""):
    if data:
        with open("/proc/%d/mem" % pid, "r+b", buffering=0) as m:
            m.seek(scratch)
            m.write(data)
    r = Regs.from_buffer_copy(saved)
    r.rip, r.rax, r.orig_rax = insn, nr, (1 << 64) - 1
    for name, v in zip(["rdi", "rsi", "rdx", "r10", "r8", "r9"], args):
        setattr(r, name, v % (1 << 64))
    pt(SETREGS, pid, 0, ctypes.addressof(r))
    pt(SINGLESTEP, pid)
    stopped(pid)
    pt(GETREGS, pid, 0, ctypes.addressof(r))
    return r.rax - (1 << 64) if r.rax >= 1 << 63 else r.rax


def result(what, rc):
    print("%s %s" % (what, "ok" if rc >= 0 else errno.errorcode.get(-rc, str(-rc))))


AT_FDCWD = -100
for what in sys.argv[2:]:
    kind, arg = what.split(":", 1)
    if kind in ("open", "create"):
        flags = os.O_RDONLY if kind == "open" else os.O_WRONLY | os.O_CREAT | os.O_EXCL
        fd = call(257, AT_FDCWD, scratch, flags | os.O_CLOEXEC, 0o600, data=arg.encode() + b"\0")
        if fd >= 0:
            call(3, fd)
        result(what, fd)
    elif kind == "exec":
        # argv { PATH, NULL } after the path on the stack
        path = arg.encode() + b"\0"
        argv = scratch + ((len(path) + 15) & ~15)
        data = path.ljust(argv - scratch, b"\0") + struct.pack("<QQ", scratch, 0)
        result(what, call(59, scratch, argv, 0, data=data))
    elif kind == "connect":
        addr, port = arg.rsplit(":", 1)
        s = call(41, socket.AF_INET, socket.SOCK_STREAM | socket.SOCK_CLOEXEC, 0)
        if s < 0:
            result(what, s)
            continue
        sa = struct.pack("<HH4s8x", socket.AF_INET, socket.htons(int(port)), socket.inet_aton(addr))
        result(what, call(42, s, scratch, len(sa), data=sa))
        call(3, s)
    else:
        sys.exit("inject.py: unknown call " + what)
pt(SETREGS, pid, 0, ctypes.addressof(saved))
pt(DETACH, pid)
