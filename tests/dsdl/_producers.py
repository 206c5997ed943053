"""Who makes C and C++ headers for the DSDL tests: wireplan and nunavut 3.1 (nnvg), and the
names their headers give each pydsdl type (C: ``uavcan_node_Heartbeat_1_0`` in
``uavcan/node/Heartbeat_1_0.h``; C++: ``uavcan::node::Heartbeat_1_0`` in ``...hpp``),
written here from the conventions, independently of wireplan's emitters.  The fixtures that
make the headers are in conftest.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydsdl
import pytest

from ._support import REPO, unwrap

# Types of the public set that nunavut's own run covers (with their dependencies), next to
# the whole corner namespace; the application's types are among them.
PEER_SUBSET = [
    "uavcan/node/7509.Heartbeat.1.0.dsdl",
    "uavcan/node/430.GetInfo.1.0.dsdl",
    "uavcan/node/port/7510.List.1.0.dsdl",
    "uavcan/register/384.Access.1.0.dsdl",
    "uavcan/primitive/array/Real32.1.0.dsdl",
    "uavcan/primitive/array/Natural16.1.0.dsdl",
    "uavcan/primitive/array/Bit.1.0.dsdl",
    "uavcan/file/408.Read.1.1.dsdl",
    "uavcan/pnp/8165.NodeIDAllocationData.2.0.dsdl",
    "reg/udral/physics/kinematics/cartesian/StateVarTs.0.1.dsdl",
    "reg/udral/service/battery/Status.0.2.dsdl",
    "reg/udral/service/actuator/common/_.0.1.dsdl",
]
_C_KEYWORDS = frozenset(
    [
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "_Alignas",
        "_Alignof",
        "_Atomic",
        "_Bool",
        "_Complex",
        "_Generic",
        "_Imaginary",
        "_Noreturn",
        "_Static_assert",
        "_Thread_local",
    ]
)

# ---------------------------------------------------------------- names and layout


def c_name(t: Any) -> str:
    """The C type name: ``uavcan_node_Heartbeat_1_0``, ``uavcan_register_Access_Request_1_0``."""
    inner = unwrap(t)
    return f"{inner.full_name.replace('.', '_')}_{inner.version.major}_{inner.version.minor}"


def c_header(t: Any) -> str:
    """The header path: namespaces with C keywords escaped, one header per service."""
    inner = unwrap(t)
    parts = inner.full_name.split(".")
    if len(parts) > 2 and parts[-1] in ("Request", "Response") and _is_service_half(inner):
        parts = parts[:-1]
    folders = [f"_{p}" if p in _C_KEYWORDS else p for p in parts[:-1]]
    short = "" if parts[-1] == "_" else parts[-1]
    return "/".join([*folders, f"{short}_{inner.version.major}_{inner.version.minor}.h"])


def cpp_parts(t: Any) -> tuple[list[str], str, str]:
    """(namespaces, class, header) of a type in nunavut's C++: ``uavcan::node::GetInfo`` and
    ``Request_1_0`` in ``uavcan/node/GetInfo_1_0.hpp``; C++ keywords get a leading
    underscore, a name that starts with two underscores has them spelled ``zX005F``."""
    inner = unwrap(t)
    parts = inner.full_name.split(".")
    version = f"{inner.version.major}_{inner.version.minor}"
    spaces = [f"_{p}" if p in _C_KEYWORDS else p for p in parts[:-1]]
    cls = f"{parts[-1]}_{version}"
    if cls.startswith("__"):
        cls = "zX005FzX005F" + cls[2:]
    if len(parts) > 2 and parts[-1] in ("Request", "Response") and _is_service_half(inner):
        return spaces, cls, "/".join([*spaces[:-1], f"{parts[-2]}_{version}.hpp"])
    return spaces, cls, "/".join([*spaces, f"{cls}.hpp"])


def cpp_name(t: Any) -> str:
    """``uavcan::node::GetInfo::Request_1_0``."""
    spaces, cls, _ = cpp_parts(t)
    return "::".join([*spaces, cls])


def _is_service_half(inner: Any) -> bool:
    return bool(getattr(inner, "has_parent_service", False))


def max_bytes(t: Any) -> int:
    """``T_SERIALIZATION_BUFFER_SIZE_BYTES_``: the largest serialized size, no delimiter header."""
    return int(unwrap(t).bit_length_set.max + 7) // 8


def extent_bytes(t: Any) -> int:
    """``T_EXTENT_BYTES_``: what a delimited type's decoder accepts (the size when sealed)."""
    return (t.extent + 7) // 8 if isinstance(t, pydsdl.DelimitedType) else max_bytes(t)


# ---------------------------------------------------------------- producers


@dataclass
class Headers:
    """One producer's C headers of some types."""

    producer: str
    out: Path
    types: list[Any]
    language: str = "c"


def _need(tool: str | None, what: str) -> str:
    if tool is None or not Path(tool).exists():
        pytest.skip(f"{what} not found")
    return tool


def nnvg_path() -> str:
    found = os.environ.get("WIREPLAN_NNVG")
    if found:
        return found
    local = REPO / ".venv-nunavut-3.1" / "bin" / "nnvg"
    if local.exists():
        return str(local)
    return "nnvg"


# nunavut's C++ output: --target-language cpp is "experimental" in nunavut 3.1.
NNVG_CPP = ["--experimental-languages", "--target-language", "cpp", "--language-standard"]


# nunavut 3.1.0's built-in cetl++14-17 options name cetl::variable_length_array, which no CETL
# release has (CETL's class is VariableLengthArray; nunavut's main branch has this fix): the
# override that makes its output build with CETL (tests/dsdl/cetl).
NNVG_CETL_FIX = {
    "nunavut.lang.cpp": {
        "defaults": {
            "cetl++14-17": {
                "variable_array_type_template": "cetl::VariableLengthArray<{TYPE}, {REBIND_ALLOCATOR}>"
            }
        }
    }
}


def nnvg_standard(standard: str, folder: Path) -> list[str]:
    """nnvg's C++ options for ``standard``; for cetl++14-17 with NNVG_CETL_FIX, written into
    ``folder`` (``--configuration`` takes every argument up to the next option: let another
    option follow)."""
    options = [*NNVG_CPP, standard]
    if standard == "cetl++14-17":
        fix = folder / "nnvg-cetl.json"
        fix.write_text(json.dumps(NNVG_CETL_FIX))
        options += ["--configuration", str(fix)]
    return options


def run_nnvg(
    out: Path, targets: list[str], lookup: list[Path], language: str = "c", standard: str = "c++17"
) -> None:
    nnvg = _need(shutil.which(nnvg_path()), f"nunavut's nnvg ({nnvg_path()})")
    with tempfile.TemporaryDirectory(prefix="nnvg-") as tmp:
        lang = (
            nnvg_standard(standard, Path(tmp)) if language == "cpp" else ["--target-language", "c"]
        )
        cmd = [nnvg, *lang, "--outdir", str(out)]
        for d in lookup:
            cmd += ["--lookup-dir", str(d)]
        done = subprocess.run([*cmd, *targets], capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-6000:]}"
