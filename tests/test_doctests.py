"""The examples in the package's docstrings run and print what they show, as ``pytest --doctest-modules
ir_rbstar`` runs them (every module of the package but ``__main__``, each docstring in a copy of its module's
namespace, from the repository's folder, no option flags), here in this process with the standard library's
doctest: they start from an empty registry of named runs as in a new process, the names they register are
dropped afterwards, what was registered before is back, and the figures they draw are closed."""
import doctest
import importlib
import io
import pkgutil

import ir_rbstar
from tests.helpers import REPO


def _modules():
    names = ["ir_rbstar"] + [info.name for info in pkgutil.walk_packages(ir_rbstar.__path__, "ir_rbstar.")
                             if not info.name.endswith(".__main__")]
    return [importlib.import_module(name) for name in names]


def test_docstring_examples_print_what_they_show(monkeypatch):
    from ir_rbstar import references as registry
    runs, groups = dict(registry._REGISTERED), dict(registry._GROUPS)
    registry._REGISTERED.clear()                 # as in a new process: the examples list what they register
    registry._GROUPS.clear()
    ir_rbstar.clear_cache()
    monkeypatch.chdir(REPO)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=0)
    report = io.StringIO()
    ran = []
    try:
        for module in _modules():
            for test in finder.find(module, module.__name__):
                if test.examples:
                    ran.append((test.name, len(test.examples)))
                    runner.run(test, out=report.write)
    finally:
        registry._REGISTERED.clear()
        registry._REGISTERED.update(runs)
        registry._GROUPS.clear()
        registry._GROUPS.update(groups)
        ir_rbstar.clear_cache()
        import matplotlib.pyplot as plt
        plt.close("all")
    # the finder finds them: the examples of every picture and of the report's statistics among them
    for name in ("ir_rbstar.med", "ir_rbstar.plots.crp_curves.plot_crp", "ir_rbstar.plots.effort_gain.plot_effort_gain",
                 "ir_rbstar.plots.nrg_scatter.plot_nrg", "ir_rbstar.plots.distance_matrix.plot_distance_matrix",
                 "ir_rbstar.plots.first_stage.plot_rbr_bounds", "ir_rbstar.report.stats.holm",
                 "ir_rbstar.report.stats.randomization_test", "ir_rbstar.report.catalogue.value_range",
                 "ir_rbstar.twist"):
        assert name in dict(ran), name
    assert sum(examples for name, examples in ran if name.startswith("ir_rbstar.plots.")) >= 10
    assert sum(examples for name, examples in ran if name.startswith("ir_rbstar.report.")) >= 4
    assert dict(ran)["ir_rbstar.twist"] >= 5
    assert runner.failures == 0, report.getvalue()[-6000:]
