"""Start-up of the ``ir-rbstar`` command: two settings of its own process made while ``import ir_rbstar``
loads ir_measures and numpy, and undone when that import ends, also when it fails (:func:`loading`).

1. OpenBLAS's idle workers told not to spin. numpy's wheels load OpenBLAS when numpy is imported
   (``import ir_measures`` imports numpy), and OpenBLAS starts its thread pool there. An idle worker waits
   for work by spinning (``sched_yield`` in a loop) for 2**28 CPU cycles, about a tenth of a second,
   before it sleeps; a command that lives a few tenths of a second and calls no BLAS routine worth a
   thread pays that spin in full on a machine with an idle core (up to 70 ms of CPU, a third of what
   ``ir-rbstar QRELS RUN "nDCG@10 AP"`` costs; on a busy machine the yields hand the core to others and
   the spin costs less). OpenBLAS reads the wait from the environment variable ``OPENBLAS_THREAD_TIMEOUT``
   (2**N cycles, N in 4..30) when it is loaded; the command sets N = 12 (microseconds: a worker still
   takes the next call of a loop of BLAS calls without sleeping in between). The number of BLAS threads
   is unchanged; builds without OpenBLAS ignore the variable; a value the user set is kept; the variable
   is removed once numpy is loaded, so processes the command starts do not inherit it.
2. Python's cyclic garbage collector paused while the modules load: loading creates many objects and no
   garbage worth collecting (about 5 ms of CPU); it runs again when the import ends.

Both only when the process is the command (``python -m ir_rbstar ...`` or the ``ir-rbstar`` script) and
numpy is not loaded yet; ``import ir_rbstar`` in a program changes nothing of its process.
"""
from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager
from typing import Iterator, Mapping, MutableMapping, Optional, Sequence

VARIABLE = "OPENBLAS_THREAD_TIMEOUT"
#: 2**12 cycles: an idle OpenBLAS worker sleeps after microseconds instead of about 0.1 s
IDLE_WAIT = "12"
COMMAND = "ir-rbstar"
PACKAGE = "ir_rbstar"


def _main_module(options: Sequence[str]) -> str:
    """The module the interpreter's first ``-m`` names in its options (``sys.orig_argv[1:]``), also in a
    cluster of short options (``-Im ir_rbstar``, ``-Bmir_rbstar``); "" when there is none. In a cluster the
    options that take a value (``-c``, ``-m``, ``-W``, ``-X``) take the rest of it, or the next argument."""
    for i, arg in enumerate(options):
        if arg.startswith("--") or not arg.startswith("-"):
            continue                # a long option, or a value of -W / -X given as the next argument
        for j, flag in enumerate(arg[1:], start=2):
            if flag in "cmWX":
                if flag == "m":
                    return arg[j:] or (options[i + 1] if i + 1 < len(options) else "")
                break
    return ""


def is_command(argv: Sequence[str], orig_argv: Sequence[str]) -> bool:
    """Whether this process is the ``ir-rbstar`` command: ``python [options] -m ir_rbstar[.x] ...`` while
    the package is imported by runpy (``sys.argv[0]`` is then ``"-m"``), or the ``ir-rbstar`` script."""
    if not argv:
        return False
    if argv[0] == "-m":             # the interpreter's first -m names the module it runs
        return _main_module(orig_argv[1:]).split(".")[0] == PACKAGE
    name = argv[0].replace("\\", "/").rsplit("/", 1)[-1]       # a POSIX or a Windows path
    return name in (COMMAND, COMMAND + ".exe", COMMAND + "-script.py")


def quiet_idle_blas(environ: MutableMapping[str, str]) -> Optional[str]:
    """Set ``OPENBLAS_THREAD_TIMEOUT`` unless the user did; returns its name when it was set here (for
    :func:`restore`), else None."""
    if VARIABLE in environ:
        return None
    environ[VARIABLE] = IDLE_WAIT
    return VARIABLE


def restore(name: Optional[str], environ: MutableMapping[str, str]) -> None:
    """Remove the variable :func:`quiet_idle_blas` set (OpenBLAS has read it by now)."""
    if name is not None and environ.get(name) == IDLE_WAIT:
        del environ[name]


#: what :func:`begin` changed in this process, for :func:`finish`: [variable set or None, collector paused]
_STATE: list = [None, False]


def begin(argv: Sequence[str], orig_argv: Sequence[str], modules: Mapping[str, object]) -> bool:
    """The settings (see the module's text) when this process is the command and numpy is not loaded;
    returns whether it made them."""
    if "numpy" in modules or not is_command(argv, orig_argv):
        return False
    _STATE[:] = [quiet_idle_blas(os.environ), gc.isenabled()]
    gc.disable()
    return True


def finish() -> None:
    """At the end of ``import ir_rbstar`` (numpy is loaded): the variable removed, the collector running
    again (as it was)."""
    name, paused = _STATE
    _STATE[:] = [None, False]
    restore(name, os.environ)
    if paused:
        gc.enable()


@contextmanager
def loading() -> Iterator[None]:
    """The body of ``import ir_rbstar``: :func:`finish` when it ends, also when it fails (an import error in
    it would otherwise leave the variable set and the collector paused in the process)."""
    try:
        yield
    finally:
        finish()


begin(getattr(sys, "argv", ()), getattr(sys, "orig_argv", ()), sys.modules)
