"""Spark's side of :mod:`ir_rbstar.scale.spark`: the package's own errors out of Spark's wrapped ones, and the
driver's memory checked before a job runs."""
from __future__ import annotations

import contextlib
import re
import warnings
from typing import Any, Iterator, Optional

from .. import errors

#: the last line of an executor's Python traceback that names one of the package's errors
_OWN = re.compile(r"(?:ir_rbstar\.errors\.)(\w+): (.+)")

#: below this, a local-mode driver (which also runs the executors' work) is warned about (docs/scale.md)
LOCAL_DRIVER_MIN = 2 << 30


def own_error(error: BaseException) -> Optional[errors.RbstarError]:
    """The package's error an executor raised, rebuilt from Spark's wrapper (``PythonException``,
    ``Py4JJavaError``: kilobytes of JVM and Python traceback), or a one-line error for the JVM running out of
    heap; None when neither is in it."""
    text = str(error)
    found = None
    for line in text.splitlines():
        match = _OWN.search(line)
        if match and isinstance(getattr(errors, match.group(1), None), type):
            found = match
    if found is not None:
        cls = getattr(errors, found.group(1))
        if issubclass(cls, errors.RbstarError):
            return cls(found.group(2).strip())
    if "java.lang.OutOfMemoryError" in text:
        return errors.RbstarError("Spark ran out of Java heap (java.lang.OutOfMemoryError): give the driver (in local "
                                  "mode it also does the executors' work) or the executors more memory, e.g. "
                                  "spark.driver.memory=4g when the session is built, or more partitions= "
                                  "(docs/scale.md, 'Memory on Spark')")
    return None


@contextlib.contextmanager
def surfaced() -> Iterator[None]:
    """Run a Spark action; an error of the package inside it comes out as itself, one line."""
    try:
        yield
    except Exception as e:
        own = own_error(e)
        if own is None:
            raise
        raise own from None


def _bytes(size: str) -> Optional[int]:
    match = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", str(size).lower())
    if not match:
        return None
    return int(match.group(1)) << {"": 20, "k": 10, "m": 20, "g": 30, "t": 40}[match.group(2)]


def check_driver(spark: Any) -> Optional[str]:
    """Warn (RbstarWarning) before any job when a local-mode session's driver has less than
    :data:`LOCAL_DRIVER_MIN` of heap (Spark's default is 1g): in local mode the driver's JVM also holds the
    shuffle of every input row. Returns the warning's text, or None (also when the session cannot say)."""
    try:
        conf = spark.sparkContext.getConf()
        master, memory = conf.get("spark.master", ""), conf.get("spark.driver.memory", "1g")
    except Exception:                         # Spark Connect: no SparkContext; the server sizes itself
        return None
    size = _bytes(memory)
    if not str(master).startswith("local") or size is None or size >= LOCAL_DRIVER_MIN:
        return None
    text = (f"the Spark session runs in local mode with spark.driver.memory={memory}: the driver's JVM also "
            f"holds the shuffle of every input row; for inputs of millions of rows build the session with "
            f"spark.driver.memory=4g or more (docs/scale.md, 'Memory on Spark')")
    warnings.warn(text, errors.RbstarWarning, stacklevel=3)
    return text
