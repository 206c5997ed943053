"""The shape of an operator schema, shared by its sources: kernel_types, runtime, the onnx door.

A leaf (standard library only), so that the onnx door names the shape without importing
:mod:`wireplan.ort.kernel_types`, which asks the door.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Signature", "SignatureLookup"]

Signature = tuple[int, list[tuple[str, str]], list[tuple[str, str]], list[str]]
SignatureLookup = Callable[[str, str, int], "Signature | None"]
