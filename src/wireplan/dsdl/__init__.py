"""Cyphal DSDL: a compiler from DSDL to fast, safe Python serializers.

``encode`` / ``decode`` turn a generated object into bytes and back
(``serialize`` / ``deserialize``, pycyphal's names, are the same functions);
``compile`` writes an importable package (naming as in nunavut/pycyphal's
Python output: a module per namespace, ``Heartbeat_1_0`` classes, services
with nested ``Request`` / ``Response``); ``load`` compiles into a cache and
imports; ``layout`` tells, per field, the offsets pydsdl proves and the
strategy chosen.  Only :mod:`wireplan.dsdl.compiler.read` imports pydsdl, and only
``compile``, ``load`` and ``layout`` need it: generated code depends on
:mod:`wireplan.dsdl.runtime` alone.
"""

from __future__ import annotations

from wireplan.dsdl._api import (
    compile,
    decode,
    deserialize,
    encode,
    from_builtin,
    layout,
    load,
    serialize,
    to_builtin,
)

__all__ = [
    "compile",
    "decode",
    "deserialize",
    "encode",
    "from_builtin",
    "layout",
    "load",
    "serialize",
    "to_builtin",
]
