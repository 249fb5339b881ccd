"""The public API is written down (docs/api.md, generated from the ``__all__`` lists) and current."""
import importlib

import ir_rbstar
from tests.helpers import load_script

make_api = load_script("make_api")


def test_docs_api_page_is_current():
    assert make_api.PAGE.read_text(encoding="utf-8") == make_api.render(), \
        "docs/api.md is stale: run  python -m scripts.make_api --write"


def test_every_public_name_is_listed_and_exists():
    text = make_api.PAGE.read_text(encoding="utf-8")
    for module_name in ["ir_rbstar"] + [m for m, _ in make_api.MODULES]:
        module = importlib.import_module(module_name)
        assert module.__all__, module_name
        section = text.split(f"## `{module_name}`", 1)[1].split("\n## ", 1)[0]
        for name in module.__all__:
            assert hasattr(module, name), f"{module_name}.__all__ names {name!r}, which does not exist"
            assert f"| `{name}` |" in section, f"{module_name}.{name} is not in docs/api.md"


def test_the_top_level_exports_every_measure():
    assert {m.NAME for m in ir_rbstar.MEASURES} <= set(ir_rbstar.__all__)
