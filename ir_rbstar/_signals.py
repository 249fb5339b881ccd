"""SIGINT and SIGTERM in the command line: both become an exception in the main thread (so that every
``finally``, the temporary parts of ``--stream --order any`` among them, runs), then one line and exit
status 128 + the signal number (130, 143)."""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator, Optional


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM reached the command."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


#: the signal received in the current :func:`interrupts` block, if any (cleared when a block starts and when it
#: ends): some C code that calls back into Python replaces the exception raised there with one of its own (numpy's
#: ``fromfile``, interrupted while it asks the file object for its descriptor, raises a TypeError without the
#: interrupt as its cause)
_received: list = []


def _on_signal(signum, frame) -> None:
    for s in (signal.SIGINT, signal.SIGTERM):          # a second signal must not cut the clean-up short
        signal.signal(s, signal.SIG_IGN)
    _received.append(signum)
    raise Interrupted(signum)


@contextlib.contextmanager
def interrupts() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` while in the block (main thread only; the previous
    handlers come back after it)."""
    handlers = {}
    _received.clear()
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            handlers[s] = signal.signal(s, _on_signal)
    try:
        yield
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        _received.clear()                  # (read inside the block only: by the command's handlers)


def interrupt_of(error: Optional[BaseException]) -> Optional[int]:
    """The signal number when ``error`` is an interrupt or was caused by one (numba, interrupted inside
    compiled code, reports a SystemError whose cause is the interrupt), or when a signal reached the
    current :func:`interrupts` block before it (code that replaced the interrupt with an error of its
    own); None otherwise."""
    for _ in range(20):
        if error is None:
            break
        if isinstance(error, Interrupted):
            return error.signum
        if isinstance(error, KeyboardInterrupt):
            return int(signal.SIGINT)
        error = error.__cause__ or error.__context__
    return _received[0] if _received else None


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name
