"""``python -m ir_rbstar`` is the ``ir-rbstar`` command."""
import sys

from .cli import main

sys.exit(main())
