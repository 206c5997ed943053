"""The doors of the optional dependencies: a missing one is one line naming the extra to install.

Each heavy dependency is imported by exactly one module of wireplan (its door), inside
:func:`door`::

    with door("wireplan.dsdl", "pydsdl", "dsdl"):
        import pydsdl

When the module is not installed, the import raises
:class:`~wireplan.errors.MissingExtraError` (a ``WireplanError`` and an ``ImportError``),
``wireplan.dsdl needs pydsdl, which is not installed: pip install "wireplan[dsdl]"``, instead
of a bare ``ModuleNotFoundError``; the command line prints it as its one error line.  Any
other import error (a submodule missing from an old release, a broken install) passes
through unchanged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from wireplan.errors import MissingExtraError

__all__ = ["door"]


@contextlib.contextmanager
def door(feature: str, module: str, extra: str, hint: str = "") -> Iterator[None]:
    """Turn the absence of ``module`` inside the block into :class:`MissingExtraError`.

    ``hint`` is said after the pip line, in parentheses (torch: where the CPU build is).
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise MissingExtraError(feature, module, extra, hint) from None
