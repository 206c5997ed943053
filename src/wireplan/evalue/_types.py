"""The leaf of wireplan.evalue: value types that the codec and the torch conversion share.

It imports nothing else from the package but the scalar type table, so
``wireplan.evalue.torch`` can depend on it without importing the codec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from wireplan.evalue._dtypes import SCALAR_TYPES

__all__ = ["EValue", "RawTensor"]


@dataclass(frozen=True, slots=True)
class RawTensor:
    """A tensor numpy cannot hold: kept as its scalar type, shape and wire bytes.

    Decoding returns one for a scalar type without a numpy dtype
    (``complex32``, the quantized and bit types; ``extended=True`` only),
    for a zero-copy view of a bfloat16 tensor (numpy has no big-endian
    bfloat16) and for a rank above numpy's limit (64); encoding accepts one
    as it is.
    ``data`` holds the elements exactly as on the wire: row-major,
    big-endian.  From ``decode(copy=False)`` it is a read-only memoryview
    into the input buffer; otherwise ``bytes``.
    """

    scalar_type: int
    shape: tuple[int, ...]
    data: bytes | memoryview

    @property
    def dtype_name(self) -> str:
        """The ExecuTorch name of the scalar type (``"complex32"``)."""
        return SCALAR_TYPES.get(self.scalar_type, f"scalar type {self.scalar_type}")

    @property
    def nbytes(self) -> int:
        return len(self.data) if isinstance(self.data, bytes) else self.data.nbytes


EValue: TypeAlias = "bool | int | float | str | bytes | np.ndarray[Any, Any] | RawTensor | None"
