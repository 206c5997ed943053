"""Operator schemas as their sources give them, and how the ONNX domain is spelled.

A leaf (standard library only), shared by :mod:`wireplan.ort.kernel_types`, the onnxruntime
door and the onnx door, so that none of them names these through another.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ONNX_DOMAINS", "Signature", "SignatureLookup", "normal_domain"]

#: ``(since_version, inputs, outputs, type_params)``: inputs and outputs as ``(formal name,
#: type_str)`` pairs in formal order, and the schema's type-constraint parameters.
Signature = tuple[int, list[tuple[str, str]], list[tuple[str, str]], list[str]]
SignatureLookup = Callable[[str, str, int], "Signature | None"]

#: The two spellings of the ONNX domain; wireplan writes ``""``.
ONNX_DOMAINS = ("", "ai.onnx")


def normal_domain(domain: str) -> str:
    """``domain`` with the ONNX domain spelled ``""``."""
    return "" if domain in ONNX_DOMAINS else domain
