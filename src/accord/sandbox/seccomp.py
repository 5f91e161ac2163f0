"""The seccomp filter of an ``os`` sandbox: system calls an agent never needs, refused.

A classic BPF program (``struct sock_filter``: ``u16 code, u8 jt, u8 jf, u32 k``),
assembled here because the venv's Python has no libseccomp binding, and handed to
bubblewrap with ``--seccomp FD``, which installs it (after ``no_new_privs``) just before
it starts the launcher: every process of the sandbox runs under it and cannot remove it.

What it does, in order, on every system call (``struct seccomp_data``: ``nr`` at offset
0, ``arch`` at 4, ``args[i]`` at ``16 + 8 i``, little-endian):

1. **Architecture check**: a call made with any other ABI than the native one (x86_64
   ``AUDIT_ARCH_X86_64 = 0xc000003e``; aarch64 ``AUDIT_ARCH_AARCH64 = 0xc00000b7``) kills
   the process: the i386 ``int 0x80`` ABI of an x86_64 kernel has other numbers and would
   bypass the table. On x86_64, numbers with the x32 bit (``0x40000000``) get ``EPERM``.
2. **Denied calls get** ``EPERM`` (x86_64 / aarch64 numbers):

   ============================  =========  =========
   call                          x86_64     aarch64
   ============================  =========  =========
   ptrace                        101        117
   process_vm_readv / writev     310 / 311  270 / 271
   mount / umount2               165 / 166  40 / 39
   pivot_root / chroot           155 / 161  41 / 51
   unshare / setns               272 / 308  97 / 268
   keyctl / add_key / request_key 250 / 248 / 249  219 / 217 / 218
   bpf                           321        280
   perf_event_open               298        241
   userfaultfd                   323        282
   kexec_load / kexec_file_load  246 / 320  104 / 294
   init / finit / delete_module  175 / 313 / 176  105 / 273 / 106
   swapon / swapoff / reboot     167 / 168 / 169  224 / 225 / 142
   acct / syslog / quotactl      163 / 103 / 179  89 / 116 / 60
   settimeofday / clock_settime  164 / 227  170 / 112
   clock_adjtime / adjtimex      305 / 159  266 / 171
   name_to_handle_at / open_by_handle_at  303 / 304  264 / 265
   kcmp / pidfd_getfd            312 / 438  272 / 438
   fanotify_init / vhangup       300 / 153  262 / 58
   iopl / ioperm / uselib        172 / 173 / 134  (none)
   io_uring_setup/enter/register 425-427    425-427
   open_tree .. fspick           428-433    428-433
   mount_setattr                 442        442
   ============================  =========  =========

3. ``clone`` (x86_64 56, aarch64 220) with any namespace flag in its first argument
   (``CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME``
   = ``0x7e020080``) gets ``EPERM``; threads and ``fork`` pass. ``clone3`` (435) gets
   ``ENOSYS``: its flags sit behind a pointer a filter cannot read, and glibc then
   falls back to ``clone``.
4. ``personality`` (135 / 92) passes only to query (``0xffffffff``) or set ``PER_LINUX``
   (0); anything else (``ADDR_NO_RANDOMIZE``, ``READ_IMPLIES_EXEC``...) gets ``EPERM``.
5. Everything else is allowed.

    >>> prog = filter_program("x86_64")
    >>> len(prog) % 8, len(prog) // 8 < 255
    (0, True)
    >>> run_filter(prog, nr=101, arch=AUDIT_ARCH["x86_64"]) == RET_ERRNO | EPERM
    True
    >>> run_filter(prog, nr=0, arch=AUDIT_ARCH["x86_64"]) == RET_ALLOW
    True
    >>> run_filter(prog, nr=0, arch=0x40000003) == RET_KILL_PROCESS   # i386 ABI
    True
"""

from __future__ import annotations

import functools
import os
import platform
import struct
from collections.abc import Sequence

from accord.core.errors import UsageError

__all__ = [
    "AUDIT_ARCH",
    "DENIED",
    "RET_ALLOW",
    "RET_ERRNO",
    "RET_KILL_PROCESS",
    "filter_program",
    "native_arch",
    "run_filter",
    "seccomp_fd",
]

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
EPERM = 1
ENOSYS = 38
X32_BIT = 0x40000000
CLONE_NAMESPACES = 0x7E020080
PERSONALITY_QUERY = 0xFFFFFFFF

# name: (x86_64, aarch64); None where the architecture has no such call
DENIED: dict[str, tuple[int | None, int | None]] = {
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "reboot": (169, 142),
    "acct": (163, 89),
    "syslog": (103, 116),
    "quotactl": (179, 60),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "clock_adjtime": (305, 266),
    "adjtimex": (159, 171),
    "name_to_handle_at": (303, 264),
    "open_by_handle_at": (304, 265),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    "fanotify_init": (300, 262),
    "vhangup": (153, 58),
    "iopl": (172, None),
    "ioperm": (173, None),
    "uselib": (134, None),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
}
CLONE = {"x86_64": 56, "aarch64": 220}
CLONE3 = {"x86_64": 435, "aarch64": 435}
PERSONALITY = {"x86_64": 135, "aarch64": 92}

# classic BPF opcodes
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG0 = 0, 4, 16


def native_arch() -> str | None:
    """``"x86_64"`` or ``"aarch64"`` where this filter knows the machine, else None."""
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    return arch if arch in AUDIT_ARCH else None


@functools.cache
def filter_program(arch: str) -> bytes:
    """The filter for ``arch`` (``"x86_64"`` or ``"aarch64"``) as raw ``sock_filter``s
    (built once per process)."""
    index = {"x86_64": 0, "aarch64": 1}[arch]
    denied = sorted({nr for n in DENIED.values() if (nr := n[index]) is not None})
    Jump = int | str  # an offset, or a label defined below (jumps go forward only)
    body: list[tuple[int, Jump, Jump, int]] = [
        (_LD_ABS_W, 0, 0, _ARCH),
        (_JEQ, 1, 0, AUDIT_ARCH[arch]),  # the native ABI: go on
        (_RET, 0, 0, RET_KILL_PROCESS),
        (_LD_ABS_W, 0, 0, _NR),
    ]
    if arch == "x86_64":
        body.append((_JGE, "deny", 0, X32_BIT))
    body.append((_JEQ, "clone", 0, CLONE[arch]))
    body.append((_JEQ, "enosys", 0, CLONE3[arch]))
    body.append((_JEQ, "personality", 0, PERSONALITY[arch]))
    body += [(_JEQ, "deny", 0, nr) for nr in denied]
    labels = {"allow": len(body)}
    body.append((_RET, 0, 0, RET_ALLOW))
    labels["clone"] = len(body)
    body.append((_LD_ABS_W, 0, 0, _ARG0))  # the flags' low 32 bits
    body.append((_JSET, "deny", "allow2", CLONE_NAMESPACES))
    labels["personality"] = len(body)
    body.append((_LD_ABS_W, 0, 0, _ARG0))
    body.append((_JEQ, "allow2", 0, PERSONALITY_QUERY))
    body.append((_JEQ, "allow2", "deny", 0))
    labels["allow2"] = len(body)
    body.append((_RET, 0, 0, RET_ALLOW))
    labels["deny"] = len(body)
    body.append((_RET, 0, 0, RET_ERRNO | EPERM))
    labels["enosys"] = len(body)
    body.append((_RET, 0, 0, RET_ERRNO | ENOSYS))
    out = bytearray()
    for i, (code, jt, jf, k) in enumerate(body):
        offsets = [labels[j] - i - 1 if isinstance(j, str) else j for j in (jt, jf)]
        if not all(0 <= o < 256 for o in offsets):
            raise AssertionError(f"instruction {i}: jump out of range {offsets}")
        out += struct.pack("=HBBI", code, offsets[0], offsets[1], k)
    return bytes(out)


def run_filter(program: bytes, nr: int, arch: int, args: Sequence[int] = ()) -> int:
    """What ``program`` answers to one system call: a tiny interpreter of the opcodes
    :func:`filter_program` uses (tests and doctests check the program with it)."""
    data = struct.pack("=iI", nr, arch) + struct.pack("=Q", 0)
    data += b"".join(struct.pack("=Q", a) for a in (*args, 0, 0, 0, 0, 0, 0)[:6])
    insns = [struct.unpack_from("=HBBI", program, 8 * i) for i in range(len(program) // 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == _LD_ABS_W:
            acc = struct.unpack_from("=I", data, k)[0]
        elif code == _RET:
            return int(k)
        elif code in (_JEQ, _JGE, _JSET):
            hit = acc == k if code == _JEQ else acc >= k if code == _JGE else bool(acc & k)
            pc += jt if hit else jf
        else:
            raise UsageError(f"opcode {code:#x} is not one this filter uses")


def seccomp_fd() -> int | None:
    """A readable fd holding the native filter (pass it to bwrap, close it after the
    start), or None on a machine this filter does not know."""
    arch = native_arch()
    if arch is None:
        return None
    program = filter_program(arch)
    r, w = os.pipe()  # a program of ~70 instructions fits the pipe buffer
    try:
        os.write(w, program)
    finally:
        os.close(w)
    return r
