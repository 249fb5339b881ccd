"""Writing the explorer page: one self-contained HTML file (the data as JSON, the script and the style
inlined from the package's ``explore/static`` files; nothing is fetched when the page opens)."""
from __future__ import annotations

import html
import json
import os
from importlib import resources
from typing import Any, Dict

__all__ = ["render", "write_page", "STATIC"]

#: the package data files inlined into every page
STATIC = ("page.html", "explore.css", "explore.js")


def _static(name: str) -> str:
    return (resources.files("ir_rbstar") / "explore" / "static" / name).read_text(encoding="utf-8")


def _json_for_script(data: Dict[str, Any]) -> str:
    """Compact JSON that cannot end its <script> element early (``</`` and ``<!--`` escaped)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def render(data: Dict[str, Any]) -> str:
    """The page's HTML for ``data`` (from :func:`ir_rbstar.explore.build_data`)."""
    page = _static("page.html")
    parts = {"{{TITLE}}": html.escape(str(data.get("title", "ir_rbstar explorer"))),
             "{{CSS}}": _static("explore.css"), "{{JS}}": _static("explore.js").replace("</script", "<\\/script"),
             "{{DATA}}": _json_for_script(data)}
    for key, value in parts.items():      # the data last: nothing inside it is taken for a placeholder
        head, sep, tail = page.partition(key)
        page = head + value + tail if sep else page
    return page


def write_page(data: Dict[str, Any], path: Any) -> str:
    """Write the page to ``path`` (a file path; folders are not created) and return the path."""
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(data))
    return path
