"""torch support for EValue: tensors in and out, and (from ``wireplan.evalue.dataset``) ``EValueDataset``.

This is the only wireplan module that imports torch; ``wireplan.evalue.dataset``
takes what it needs of torch from here.  The codec calls
:func:`tensor_to_numpy` when it meets a torch tensor (it recognises one by
its type's module, without importing torch itself), so ``encode`` and
``encode_list`` accept tensors whenever torch is installed.  This module
depends only on the leaf ``wireplan.evalue._types``, never on the codec,
so there is no import circle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wireplan.core.extras import door

# From PyPI, the torch extra resolves to a CUDA build of several GB; the hint names the CPU one.
with door(
    "wireplan.evalue.torch",
    "torch",
    "torch",
    "for the CPU build, first: pip install torch --index-url https://download.pytorch.org/whl/cpu",
):
    import torch
    from torch.utils.data import IterableDataset, get_worker_info

from wireplan.errors import EncodeError
from wireplan.evalue._types import RawTensor

__all__ = [  # and EValueDataset, from wireplan.evalue.dataset (see __getattr__)
    "IterableDataset",
    "distributed_rank",
    "get_worker_info",
    "tensor_to_numpy",
    "to_torch",
]

# torch dtypes numpy has no type for, viewed through an integer of their size;
# the name is the ml_dtypes type that holds them.
_VIA_BITS: dict[torch.dtype, tuple[torch.dtype, str, int]] = {
    torch.bfloat16: (torch.uint16, "bfloat16", 15),
    torch.float8_e5m2: (torch.uint8, "float8_e5m2", 23),
    torch.float8_e4m3fn: (torch.uint8, "float8_e4m3fn", 24),
    torch.float8_e5m2fnuz: (torch.uint8, "float8_e5m2fnuz", 25),
    torch.float8_e4m3fnuz: (torch.uint8, "float8_e4m3fnuz", 26),
}
_TORCH_BY_ML_NAME: dict[str, torch.dtype] = {name: dt for dt, (_, name, _) in _VIA_BITS.items()}
_VIA_BITS_BY_CODE: dict[int, tuple[torch.dtype, torch.dtype]] = {
    code: (dt, bits) for dt, (bits, _, code) in _VIA_BITS.items()
}
_TORCH_MAX_RANK = 64


def tensor_to_numpy(tensor: Any) -> np.ndarray[Any, Any] | RawTensor:
    """The elements of a torch tensor as a numpy array (no copy where torch allows).

    bfloat16 and float8 tensors become ``ml_dtypes`` arrays, or a
    :class:`RawTensor` when ml_dtypes is missing; ``complex32`` becomes a
    :class:`RawTensor`.  Quantized and sparse tensors raise :class:`EncodeError`.
    """
    t: torch.Tensor = tensor.detach()
    if t.is_nested:
        raise EncodeError("cannot encode a nested torch tensor; encode its components one by one")
    if t.is_meta:
        raise EncodeError("cannot encode a torch tensor on the meta device: it has no data")
    if t.layout != torch.strided:
        raise EncodeError(f"cannot encode a {t.layout} torch tensor; make it dense first")
    if t.is_quantized:
        raise EncodeError(
            "cannot encode a quantized torch tensor: its scale and zero point have no place on the wire"
        )
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.resolve_conj().resolve_neg()
    via = _VIA_BITS.get(t.dtype)
    if via is not None:
        bits_dtype, name, code = via
        bits = t.contiguous().view(bits_dtype).numpy()
        try:
            import ml_dtypes
        except ImportError:
            return RawTensor(
                code, tuple(t.shape), bits.astype(bits.dtype.newbyteorder(">")).tobytes()
            )
        typed: np.ndarray[Any, Any] = bits.view(getattr(ml_dtypes, name))
        return typed
    if t.dtype == torch.complex32:
        parts = torch.view_as_real(t.contiguous()).numpy()
        return RawTensor(8, tuple(t.shape), parts.astype(">f2").tobytes())
    arr: np.ndarray[Any, Any] = t.numpy()
    return arr


def to_torch(value: Any) -> Any:
    """``value`` with numpy arrays turned into torch tensors; other values as they are.

    Native-endian, writable arrays (``decode(copy=True)``) share memory
    with the tensor; big-endian views (``copy=False``) are copied, as torch
    holds native byte order only.  A :class:`RawTensor` of bfloat16 or
    float8 (a zero-copy bfloat16 view; no ml_dtypes) becomes a tensor of that
    type, copied; other RawTensors stay as they are.  Lists are converted
    element by element.
    """
    if isinstance(value, list):
        return [to_torch(v) for v in value]
    if isinstance(value, RawTensor):
        return _raw_to_torch(value)
    if not isinstance(value, np.ndarray):
        return value
    arr = value
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    elif not arr.flags.writeable:
        arr = arr.copy()
    target = _TORCH_BY_ML_NAME.get(arr.dtype.name) if arr.dtype.isbuiltin == 2 else None
    if target is not None:
        bits = np.dtype(f"u{arr.dtype.itemsize}")
        return torch.from_numpy(np.ascontiguousarray(arr).view(bits)).view(target)
    return torch.from_numpy(arr)


def _raw_to_torch(raw: RawTensor) -> Any:
    # bfloat16 and float8 held as wire bits (a zero-copy bfloat16 view, or no
    # ml_dtypes): a native copy of the bits, viewed as the torch type.
    via = _VIA_BITS_BY_CODE.get(raw.scalar_type)
    if via is None:
        return raw
    target, bits_dtype = via
    if len(raw.shape) > _TORCH_MAX_RANK:  # torch holds at most 64 dimensions, as numpy
        return raw
    size = bits_dtype.itemsize
    bits = np.frombuffer(raw.data, f">u{size}").astype(f"=u{size}").reshape(raw.shape)
    return torch.from_numpy(bits).view(target)


def distributed_rank() -> tuple[int, int] | None:
    """``(rank, world_size)`` of ``torch.distributed`` when it is initialized, else None."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return None


def __getattr__(name: str) -> Any:
    # EValueDataset lives in wireplan.evalue.dataset (which imports this module).
    if name in ("EValueDataset", "STATE_VERSION"):
        from wireplan.evalue import dataset

        return getattr(dataset, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
