"""Shared helpers of the DSDL tests: where the data is, pydsdl types, generated classes."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pydsdl

REPO = Path(__file__).resolve().parents[2]
# The public regulated data types (uavcan, reg; MIT), carried in the repository.
PUBLIC = REPO / "tests" / "data" / "dsdl" / "public_regulated_data_types"
UAVCAN = (PUBLIC / "uavcan").resolve()
REG = (PUBLIC / "reg").resolve()
CORNER = Path(__file__).resolve().parent / "corner"
# Missing test data is a failure, never a skip: it is part of the checkout.
if not (UAVCAN.is_dir() and REG.is_dir()):
    raise FileNotFoundError(f"test data missing: {PUBLIC} must hold uavcan/ and reg/")


def serializable(types: list[Any]) -> list[Any]:
    """Messages, and the request and response of every service."""
    out: list[Any] = []
    for t in types:
        if isinstance(t, pydsdl.ServiceType):
            out += [t.request_type, t.response_type]
        else:
            out.append(t)
    return out


def unwrap(t: Any) -> Any:
    return t.inner_type if isinstance(t, pydsdl.DelimitedType) else t


def full_name(t: Any) -> str:
    inner = unwrap(t)
    return f"{inner.full_name}.{inner.version.major}.{inner.version.minor}"


def class_for(roots: dict[str, ModuleType], t: Any) -> Any:
    """The generated class of pydsdl type ``t``; ``roots`` maps root name to loaded package."""
    inner = unwrap(t)
    parts = inner.full_name.split(".")
    prefix = roots[parts[0]].__name__[: -len(parts[0])]
    version = f"{inner.version.major}_{inner.version.minor}"
    if parts[-1] in ("Request", "Response") and len(parts) > 2:
        module = importlib.import_module(f"{prefix}{'.'.join(parts[:-2])}")
        service = getattr(module, f"{parts[-2]}_{version}", None)
        if service is not None and hasattr(service, parts[-1]):
            return getattr(service, parts[-1])
    module = importlib.import_module(f"{prefix}{'.'.join(parts[:-1])}")
    return getattr(module, f"{parts[-1]}_{version}")
