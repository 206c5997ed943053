"""The C and C++ benchmarks' sources against both generators' headers: they build and give
pydsdl's bytes.

No timing is asserted: one timed call per type runs only to check the timing code path
(the source compares what its timed loops left with the message).
"""

from __future__ import annotations

import importlib.util
import inspect
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ._support import REPO

# The flags of the issue's correctness harness: warnings are errors, ASan and UBSan abort.
STRICT = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
]


def _bench() -> ModuleType:
    path = REPO / "benchmarks" / "bench_dsdl_c.py"
    spec = importlib.util.spec_from_file_location("bench_dsdl_c", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_dsdl_c", module)
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _need(generator: str, lang: str = "c") -> None:
    compiler = bench.LANGUAGES[lang].cc()
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not found")
    if generator == "nunavut" and not bench.nnvg_path().exists():
        pytest.skip(f"nnvg (nunavut 3.1) not found at {bench.nnvg_path()}; set $WIREPLAN_NNVG")
    if generator == "wireplan":
        from wireplan.dsdl import compile as dsdl_compile

        if "language" not in inspect.signature(dsdl_compile).parameters:
            pytest.skip("wireplan.dsdl.compile has no C backend (language=) in this tree")


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], Path]:
    data = bench.canonical_messages()
    return data, bench.write_messages(data, tmp_path_factory.mktemp("msgs") / "messages.txt")


def test_cases_cover_the_issue_types(messages: tuple[dict[str, bytes], Path]) -> None:
    names = set(messages[0])
    for name in (
        "uavcan.node.Heartbeat.1.0",
        "uavcan.primitive.array.Real32.1.0",
        "uavcan.primitive.array.Natural16.1.0",
        "uavcan.register.Value.1.0",
        "uavcan.node.port.List.1.0",
        "uavcan.node.GetInfo.Response.1.0",
        "uavcan.primitive.array.Bit.1.0",
        "corner.Misaligned.1.0",
        "corner.BitPacked.1.0",
    ):
        assert name in names
    assert any(n.startswith("reg.udral.physics.kinematics.") for n in names)
    # the full arrays: 64 floats, 128 uint16, 2048 bools
    assert len(messages[0]["uavcan.primitive.array.Real32.1.0"]) == 1 + 64 * 4
    assert len(messages[0]["uavcan.primitive.array.Natural16.1.0"]) == 1 + 128 * 2
    assert len(messages[0]["uavcan.primitive.array.Bit.1.0"]) == 2 + 2048 // 8


@pytest.mark.parametrize("lang", ["c", "cpp"])
@pytest.mark.parametrize("build", ["nunavut", "wireplan", "generic"])
def test_benchmark_source_round_trips(
    build: str, lang: str, messages: tuple[dict[str, bytes], Path], tmp_path: Path
) -> None:
    generator, flags = bench.BUILDS[build]
    _need(generator, lang)
    language = bench.LANGUAGES[lang]
    data, messages_file = messages
    headers = bench.GENERATE[generator](tmp_path / "include", language)
    if generator == "nunavut":
        flags = [*flags, *language.nunavut_flags]
    exe = bench.build(headers, "-O1", tmp_path / "bench", STRICT + flags, language)
    assert bench.check(exe, messages_file, data) == []
    timed = bench.time_once(exe, messages_file, target_ns=0, batches=1)
    assert sorted(timed) == sorted(data)


def test_check_mode_builds_both_cpp_builds(tmp_path: Path) -> None:
    """``--language cpp --check``: the script's own builds (-O2, -Os) of both producers' C++
    headers, each giving pydsdl's bytes (it raises otherwise)."""
    _need("nunavut", "cpp")
    _need("wireplan", "cpp")
    assert bench.main(["--language", "cpp", "--check", "--work", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.glob("bench-cpp-*")) == [
        f"bench-cpp-{gen}{opt}" for gen in ("nunavut", "wireplan") for opt in ("-O2", "-Os")
    ]
