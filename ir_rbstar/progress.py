"""Progress lines for long work, on stderr: shown when stderr is a terminal, or when asked for.

Library functions take a ``progress(step, total, message)`` callable (None: silent); the command line
makes one with :func:`reporter`. Nothing here prints unless a caller asked for it.
"""
from __future__ import annotations

import sys
from typing import Callable, Optional

__all__ = ["Progress", "reporter"]

Progress = Callable[[int, int, str], None]


def reporter(wanted: Optional[bool] = None, prefix: str = "ir-rbstar", stream=None) -> Optional[Progress]:
    """A progress callable writing ``prefix: [step/total] message`` lines to ``stream`` (stderr), or None.

    ``wanted``: True always reports, False never, None only when the stream is a terminal (so that
    scripts and pipes stay quiet unless they ask)."""
    out = sys.stderr if stream is None else stream
    if wanted is None:
        wanted = bool(getattr(out, "isatty", lambda: False)())
    if not wanted:
        return None

    def report(step: int, total: int, message: str) -> None:
        print(f"{prefix}: [{step}/{total}] {message}", file=out, flush=True)
    return report
