"""Length-prefixed frames on a pipe, with a size cap and a deadline on every read and write.

A frame is a 5-byte header (body length, 4 bytes big-endian, and a kind byte) and the
body. Kind ``J`` is UTF-8 JSON; kind ``P`` is a pickle and flows only from the organiser
to the sandbox (the organiser trusts itself; the sandbox never sends one that is read):
:class:`FrameReader` on the organiser's side accepts ``J`` frames only and never
unpickles or evaluates anything. Its reads are non-blocking and polled against a
deadline, so a partial frame (a header and one byte) never blocks past it.

    >>> r, w = os.pipe()
    >>> write_frame(w, {"op": "hi"}, time.monotonic() + 1)
    >>> FrameReader(r, 1024).read(time.monotonic() + 1)
    {'op': 'hi'}
"""

from __future__ import annotations

import json
import os
import pickle
import select
import struct
import time
from typing import Any

from accord.core.errors import AccordError
from accord.sandbox.limits import AgentProtocolError

__all__ = ["NOTHING", "FrameReader", "FrameTimeout", "PeerClosed", "encode", "write_frame"]

HEADER = struct.Struct(">IB")
JSON_KIND = ord("J")
PICKLE_KIND = ord("P")
_CHUNK = 1 << 16
NOTHING: Any = object()
"""What :meth:`FrameReader.try_read` returns while no whole frame has arrived."""


class PeerClosed(AccordError):
    """The other end closed the pipe (the process exited or was killed)."""


class FrameTimeout(AccordError):
    """A frame did not arrive (or could not be sent) before its deadline."""


def encode(obj: Any, *, trusted_pickle: bool = False) -> bytes:
    """One frame: JSON (default) or, from the organiser only, a pickle."""
    if trusted_pickle:
        body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return HEADER.pack(len(body), PICKLE_KIND) + body
    body = json.dumps(obj, separators=(",", ":")).encode()
    return HEADER.pack(len(body), JSON_KIND) + body


def write_frame(fd: int, obj: Any, deadline: float, *, trusted_pickle: bool = False) -> None:
    """Write one frame to the non-blocking or blocking ``fd`` before ``deadline``
    (``time.monotonic()``); raises :class:`FrameTimeout` or :class:`PeerClosed`."""
    write_bytes(fd, encode(obj, trusted_pickle=trusted_pickle), deadline)


def write_bytes(fd: int, data: bytes, deadline: float) -> None:
    """Write all of ``data`` before ``deadline`` (polling when the pipe is full)."""
    view = memoryview(data)
    while view:
        try:  # try first: a pipe with room takes the frame at once (no poll)
            n = os.write(fd, view[:_CHUNK])
        except BlockingIOError:
            n = 0
        except OSError:  # BrokenPipeError and the like: the reader is gone
            raise PeerClosed from None
        view = view[n:]
        if not view:
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise FrameTimeout
        ready = select.poll()
        ready.register(fd, select.POLLOUT)
        events = ready.poll(max(1, int(left * 1000)))
        if not events:
            raise FrameTimeout
        if events[0][1] & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
            raise PeerClosed


class FrameReader:
    """Reads JSON frames from a non-blocking pipe ``fd``, at most ``max_bytes`` each.

    Raises :class:`FrameTimeout` at the deadline, :class:`PeerClosed` at end of file and
    :class:`~accord.sandbox.limits.AgentProtocolError` for an oversized frame, a frame
    of another kind or a body that is not JSON.
    """

    def __init__(self, fd: int, max_bytes: int) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self._buf = bytearray()
        os.set_blocking(fd, False)
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN)

    def read(self, deadline: float) -> Any:
        """The next frame's JSON value."""
        poller = self._poller
        while True:
            frame = self._take()
            if frame is not NOTHING:
                return frame
            left = deadline - time.monotonic()
            if left <= 0:
                raise FrameTimeout
            if not poller.poll(max(1, int(left * 1000))):
                raise FrameTimeout
            self._fill()

    def try_read(self) -> Any:
        """The next frame's JSON value if a whole one has arrived, else :data:`NOTHING`
        (never waits: for callers that poll many pipes at once)."""
        frame = self._take()
        while frame is NOTHING and self._fill():
            frame = self._take()
        return frame

    def _fill(self) -> bool:
        """Read what the pipe holds now (up to a chunk); False if nothing was there."""
        try:
            chunk = os.read(self.fd, _CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            raise PeerClosed from None
        if not chunk:
            raise PeerClosed
        self._buf += chunk
        return True

    def _take(self) -> Any:
        if len(self._buf) < HEADER.size:
            return NOTHING
        size, kind = HEADER.unpack_from(self._buf)
        if kind != JSON_KIND:
            raise AgentProtocolError(
                f"the agent sent a frame of kind {kind!r} (only JSON frames are accepted)"
            )
        if size > self.max_bytes:
            raise AgentProtocolError(
                f"the agent sent a frame of {size} bytes (at most {self.max_bytes} allowed)"
            )
        end = HEADER.size + size
        if len(self._buf) < end:
            return NOTHING
        body = bytes(self._buf[HEADER.size : end])
        del self._buf[:end]
        try:
            return json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise AgentProtocolError(
                f"the agent sent a frame that is not JSON ({type(exc).__name__}: {exc})"[:300]
            ) from None


# -- the sandbox's side (trusted launcher code; blocking) -----------------------------------
_pending = bytearray()  # bytes read past the last frame (one organiser per process)


def read_trusted(fd: int) -> Any:
    """Read one frame sent by the organiser (blocking; JSON or pickle). None at EOF."""
    head = _read_exact(fd, HEADER.size)
    if head is None:
        return None
    size, kind = HEADER.unpack(head)
    body = _read_exact(fd, size) if size else b""
    if body is None:
        return None
    return pickle.loads(body) if kind == PICKLE_KIND else json.loads(body)


def _read_exact(fd: int, n: int) -> bytes | None:
    while len(_pending) < n:
        chunk = os.read(fd, max(_CHUNK, n - len(_pending)))
        if not chunk:
            return None
        _pending.extend(chunk)
    out = bytes(_pending[:n])
    del _pending[:n]
    return out
