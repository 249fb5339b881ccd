"""An interrupt that some code turns into an error of its own is still reported as the interrupt.

numpy's ``fromfile`` (under ``np.load`` of the ``--stream --order any`` parts), interrupted while it asks the
file object for its descriptor, raises ``TypeError: expected str, bytes or os.PathLike object, not
BufferedReader`` without the interrupt as its cause: the command printed a traceback instead of its one line
and status 128 + the signal. Here the signal handler runs inside a stand-in for the evaluation whose own
error replaces the interrupt, as numpy's does."""
from __future__ import annotations

import signal

import pytest

from ir_rbstar import _signals, cli, errors


def _replacing(error):
    def run(argv):
        try:
            _signals._on_signal(signal.SIGTERM, None)        # what SIGTERM does in the command
        except BaseException:
            pass                                             # swallowed, as C code clearing the error does
        raise error                                          # (no __context__: outside the except block)
    return run


_REPLACED = [TypeError("expected str, bytes or os.PathLike object, not BufferedReader"),
             errors.InputFormatError("a file that was being read")]


@pytest.mark.parametrize("error", _REPLACED, ids=["TypeError", "RbstarError"])
def test_an_interrupt_replaced_by_an_error_ends_with_its_line_and_status(monkeypatch, capsys, error):
    monkeypatch.setattr(cli, "run_measures", _replacing(error))
    before = signal.getsignal(signal.SIGTERM)
    assert cli.main(["q.txt", "r.txt", "P@1"]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert err.startswith("ir-rbstar: interrupted by SIGTERM; temporary files removed") and err.count("\n") == 1
    assert signal.getsignal(signal.SIGTERM) is before        # the handlers in place before come back
    assert _signals.interrupt_of(error) is None              # the signal is forgotten once the command ends


def test_an_error_without_a_signal_is_not_taken_for_one(monkeypatch, capsys):
    def run(argv):
        raise errors.InputFormatError("bad line 3")
    monkeypatch.setattr(cli, "run_measures", run)
    assert cli.main(["q.txt", "r.txt", "P@1"]) == 2
    assert "ir-rbstar: error: bad line 3" in capsys.readouterr().err

    def fail(argv):
        raise TypeError("a bug")
    monkeypatch.setattr(cli, "run_measures", fail)
    with pytest.raises(TypeError, match="a bug"):
        cli.main(["q.txt", "r.txt", "P@1"])
