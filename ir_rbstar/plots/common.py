"""What every picture shares: matplotlib loaded on demand (an error naming the extra when it is
missing), file formats, saving, and the names of runs taken from their files."""
from __future__ import annotations


import os
import sys
from typing import TYPE_CHECKING, Any, Optional, Union


from ..errors import ParameterError

if TYPE_CHECKING:                                    # matplotlib stays optional at run time
    pass




#: resolution of written PNG files (dots per inch); a figure of W x H inches gives W*DPI x H*DPI pixels
DPI = 100


_INSTALL = 'matplotlib is needed for ir_rbstar pictures: pip install "ir_rbstar[plot]"'


_EXTENSIONS = {".png": "png", ".svg": "svg"}


PathLike = Union[str, os.PathLike]


def _has_display() -> bool:
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def _pyplot():
    """``matplotlib.pyplot``, imported on first use ("Agg" when there is no display and no backend
    was chosen)."""
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(_INSTALL) from e
    if "matplotlib.pyplot" not in sys.modules and not os.environ.get("MPLBACKEND") and not _has_display():
        chosen = getattr(matplotlib.rcParams, "_get_backend_or_none", lambda: None)()
        if chosen is None:                          # still "auto": nobody called matplotlib.use()
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def picture_format(path: Optional[PathLike]) -> Optional[str]:
    """The format a picture is written in, from the extension of ``path``: "png" or "svg" (None for no
    path); any other extension raises ParameterError."""
    if path is None:
        return None
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in _EXTENSIONS:
        raise ParameterError(f"path={os.fspath(path)!r}: unsupported file extension {ext or '(none)'!r}; "
                             f"write a picture as .png or .svg")
    return _EXTENSIONS[ext]


def _set_title(ax, title: Optional[str], default: str) -> None:
    """``title`` on the axes; None means ``default``, "" no title."""
    title = default if title is None else title
    if title:
        ax.set_title(title)


def _save(fig, path: Optional[PathLike]) -> None:
    fmt = picture_format(path)
    if fmt == "png":
        fig.savefig(path, format="png", dpi=DPI)
    elif fmt == "svg":
        fig.savefig(path, format="svg", metadata={"Date": None})


def _run_label(run: Any) -> Optional[str]:
    if isinstance(run, (str, os.PathLike)):
        return run_name(run)
    return None


def run_name(path: PathLike) -> str:
    """The name of a run file: its base name without ``.gz``, ``.run``, ``.txt`` (and ``.trec``)
    extensions, e.g. ``runs/bm25.run.gz`` -> ``bm25``."""
    name = os.path.basename(os.fspath(path))
    while True:
        stem, ext = os.path.splitext(name)
        if ext.lower() not in (".gz", ".run", ".txt", ".trec") or not stem:
            return name
        name = stem


def named_run(given: Any, names) -> Any:
    """The run of ``names`` that ``given`` means: ``given`` itself when it is one of them, else its
    :func:`run_name` when that is one (a file name or path given for the run it names, ``bm25.run.gz``);
    otherwise ``given`` unchanged, for the caller's error to name."""
    if given in names or not isinstance(given, (str, os.PathLike)):
        return given
    return run_name(given) if run_name(given) in names else given


def run_names(paths) -> dict:
    """Run name -> path for a list of run files: :func:`run_name` of each; a repeated name gets
    ' (2)', ' (3)', ..."""
    runs: dict = {}
    for path in paths:
        name, k = run_name(path), 1
        while (name if k == 1 else f"{name} ({k})") in runs:
            k += 1
        runs[name if k == 1 else f"{name} ({k})"] = path
    return runs
