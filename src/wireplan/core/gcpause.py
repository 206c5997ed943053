"""Pausing the cyclic garbage collector while a large tree of small objects is built.

Converting a model with thousands of nodes creates tens of thousands of
small objects; each collection the growing heap triggers rescans all of
them, which can cost more than the work itself.  What is built is a tree
(no cycles to collect), so the collector is paused for the block.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["gc_paused"]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block, back on after it if it was on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
