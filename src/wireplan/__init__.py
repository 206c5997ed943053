"""wireplan: binary serialization with the layout planned first.

Three formats over one core:

- :mod:`wireplan.evalue` - ExecuTorch's Java ``EValue`` wire format.
- :mod:`wireplan.dsdl` - a compiler from Cyphal DSDL to fast Python serializers.
- :mod:`wireplan.ort` - ONNX Runtime's ``.ort`` FlatBuffers model format.

:mod:`wireplan.core` holds what they share: a plan of regions, an executor
that fills a destination serially or with threads, zero-copy views, and
atomic file writes.  Every error wireplan raises derives from
:class:`WireplanError`.
"""

from __future__ import annotations

import importlib
import types

from wireplan.errors import (
    ArgumentError,
    CompileError,
    DecodeError,
    EncodeError,
    FileError,
    LimitError,
    MissingExtraError,
    NotFoundError,
    PeerError,
    WireplanError,
)

__version__ = "0.1.0"

__all__ = [
    "ArgumentError",
    "CompileError",
    "DecodeError",
    "EncodeError",
    "FileError",
    "LimitError",
    "MissingExtraError",
    "NotFoundError",
    "PeerError",
    "WireplanError",
    "__version__",
    "core",
    "dsdl",
    "evalue",
    "ort",
]

_SUBPACKAGES = frozenset({"core", "dsdl", "evalue", "ort"})


def __getattr__(name: str) -> types.ModuleType:
    # The format packages load on first use, so `import wireplan` stays cheap.
    if name in _SUBPACKAGES:
        return importlib.import_module(f"wireplan.{name}")
    raise AttributeError(f"module 'wireplan' has no attribute {name!r}")
