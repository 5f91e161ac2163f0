"""A hostile agent that tries every system call the sandbox's seccomp filter denies.

Run by ``EchoHost`` as ``run(op, payload, context)``: ``"denied"`` calls each denied
number with arguments that would do nothing harmful if it were allowed (zeros; this
runs only inside the ``os`` sandbox, unprivileged), ``"harmless"`` only calls that a
plain process may make (for the ``process`` mode comparison), ``"status"`` reads the
kernel's seccomp state of the process.
"""

from __future__ import annotations

import ctypes
import errno
import os
import threading
from typing import Any

from accord.sandbox.seccomp import CLONE, CLONE3, DENIED, PERSONALITY, native_arch

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x10000000, 0x40000000, 17
ADDR_NO_RANDOMIZE = 0x0040000


def _call(nr: int, *args: int) -> int | str:
    """0 (or the result) when the kernel ran it, else the errno's name."""
    ctypes.set_errno(0)
    result = _libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
    if result == -1:
        err = ctypes.get_errno()
        return errno.errorcode.get(err, str(err))
    return int(result)


def run(op: str, payload: Any, context: Any) -> Any:
    arch = native_arch()
    assert arch is not None
    index = {"x86_64": 0, "aarch64": 1}[arch]
    if op == "denied":
        out: dict[str, Any] = {}
        for name, numbers in DENIED.items():
            nr = numbers[index]
            if nr is not None:
                out[name] = _call(nr, 0, 0, 0, 0, 0, 0)
        out["clone(CLONE_NEWUSER)"] = _call(CLONE[arch], CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
        out["clone(CLONE_NEWNET)"] = _call(CLONE[arch], CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0)
        out["clone3"] = _call(CLONE3[arch], 0, 0)
        out["personality(ADDR_NO_RANDOMIZE)"] = _call(PERSONALITY[arch], ADDR_NO_RANDOMIZE)
        out["personality(query)"] = (
            "ok" if isinstance(_call(PERSONALITY[arch], 0xFFFFFFFF), int) else "refused"
        )
        done = []
        t = threading.Thread(target=lambda: done.append(1))
        t.start()
        t.join()
        pid = os.fork()  # a plain fork is no namespace: allowed
        if pid == 0:
            os._exit(0)
        out["thread and fork"] = "ok" if done and os.waitpid(pid, 0)[1] == 0 else "failed"
        return out
    if op == "harmless":  # no filter (process mode): these run
        iov = (ctypes.c_char * 1)()
        return {
            "unshare(0)": _call(DENIED["unshare"][index] or 0, 0),
            "process_vm_readv(self, 0 iovecs)": _call(
                DENIED["process_vm_readv"][index] or 0, os.getpid(), ctypes.addressof(iov), 0,
                ctypes.addressof(iov), 0, 0,
            ),
        }  # fmt: skip
    if op == "status":
        with open("/proc/self/status") as f:
            status = {
                k: v.strip()
                for k, _, v in (line.partition(":") for line in f)
                if k in ("Seccomp", "Seccomp_filters", "NoNewPrivs", "CapEff")
            }
        with open("/proc/self/uid_map") as f:
            status["uid_map"] = " ".join(f.read().split())
        status["uid"] = str(os.getuid())
        return status
    raise ValueError(op)
