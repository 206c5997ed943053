"""The C++ reader of EValue bytes, lists and record files: headers shipped as package data.

``wireplan_evalue.hpp`` is the reader (header-only C++17, no allocation, no exceptions);
``wireplan_evalue_executorch.hpp`` turns what it reads into ExecuTorch's ``EValue`` and
``TensorPtr`` where ExecuTorch's headers are.  ``wireplan evalue header -o DIR`` writes them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from wireplan.core.atomic import write_bytes
from wireplan.errors import FileError

__all__ = ["HEADERS", "header_folder", "write_headers"]

#: The shipped headers: the reader, then its ExecuTorch adapter.
HEADERS: Final = ("wireplan_evalue.hpp", "wireplan_evalue_executorch.hpp")


def header_folder() -> Path:
    """The installed folder holding :data:`HEADERS` (an include path for a compiler)."""
    return Path(__file__).resolve().parent / "cpp"


def write_headers(folder: str | os.PathLike[str], *, durable: bool = True) -> list[Path]:
    """Write the headers into ``folder`` (created if missing), each atomically; their paths."""
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = f"cannot create the folder {out}: {exc.strerror or exc}"
        raise FileError(reason, str(out), exc.errno) from None
    paths = []
    for name in HEADERS:
        path = out / name
        write_bytes(path, (header_folder() / name).read_bytes(), durable=durable)
        paths.append(path)
    return paths
