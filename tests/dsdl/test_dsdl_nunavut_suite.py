"""nunavut's own C verification suite, built against nunavut 3.1's headers and wireplan's.

The suite's files are vendored unmodified (tests/dsdl/nunavut_verification/README.md says
which and why some are left out).  Each test file is compiled with the suite's warning
flags against each generator's output for the suite's namespaces, run, and its per-test
lines compared: every test that passes on nunavut's headers must pass on wireplan's.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import wireplan.dsdl as dsdl

from ._support import UAVCAN
from .test_dsdl_c_emit import NNVG, STRICT_C

SUITE = Path(__file__).resolve().parent / "nunavut_verification"
ROOTS = [SUITE / "types" / "regulated", SUITE / "types" / "mymsgs", UAVCAN]
# The suite's C flags but -Wfloat-equal: test_serialization.c compares floats with == itself
# (the headers are checked with it in test_dsdl_c_emit.py).
FLAGS = ["-std=c11", *(flag for flag in STRICT_C if flag != "-Wfloat-equal")]
UNITY_TESTS = ["test_constant", "test_serialization", "test_override_variable_array_capacity"]
# Test counts per file (RUN_TEST lines): the suite is what was vendored, all of it ran.
EXPECTED = {"test_constant": 3, "test_serialization": 8, "test_override_variable_array_capacity": 1}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not NNVG.is_file():
        pytest.skip(f"nunavut 3.1's nnvg not found at {NNVG} (set WIREPLAN_NNVG)")
    base = tmp_path_factory.mktemp("suite")
    theirs = base / "nunavut"
    cmd = [str(NNVG), "--target-language", "c", "--outdir", str(theirs)]
    for root in ROOTS:
        cmd += ["--lookup-dir", str(root)]
    subprocess.run([*cmd, *(str(r) for r in ROOTS)], check=True, capture_output=True)
    mine = base / "wireplan"
    dsdl.compile(ROOTS, output=mine, language="c", durable=False)
    return {"nunavut": theirs, "wireplan": mine}


def _run(out: Path, test: str, tmp: Path) -> tuple[int, str]:
    gcc = shutil.which("gcc")
    assert gcc is not None
    exe = tmp / f"{test}-{out.name}"
    src = SUITE / "c" / f"{test}.c"
    cmd = [gcc, *FLAGS, f"-I{out}", f"-I{SUITE / 'unity'}", str(src), "-o", str(exe), "-lm"]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, f"{test} against {out.name}:\n{built.stderr[-4000:]}"
    ran = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    return ran.returncode, ran.stdout


@pytest.mark.parametrize("test", UNITY_TESTS)
def test_every_test_nunavut_passes_passes_on_ours(
    outputs: dict[str, Path], tmp_path: Path, test: str
) -> None:
    results = {who: _run(out, test, tmp_path) for who, out in outputs.items()}
    lines = {
        who: [line for line in out.splitlines() if line.startswith(("PASS ", "FAIL "))]
        for who, (_, out) in results.items()
    }  # test_serialization.c also prints its random seed (time-based, the suite's own)
    theirs = [line for line in lines["nunavut"] if line.startswith("PASS ")]
    assert len(lines["nunavut"]) == EXPECTED[test] == len(lines["wireplan"]), results
    missing = [line for line in theirs if line not in lines["wireplan"]]
    assert not missing, f"passes on nunavut's headers, not on ours: {missing}\n{results}"
    assert results["wireplan"][0] == 0, results["wireplan"][1]


def test_simple_program(outputs: dict[str, Path], tmp_path: Path) -> None:
    """test_simple.c has no Unity: it must build and exit 0."""
    for out in outputs.values():
        assert _run(out, "test_simple", tmp_path)[0] == 0


@pytest.mark.parametrize("who", ["nunavut", "wireplan"])
def test_armv7m_builds(outputs: dict[str, Path], tmp_path: Path, who: str) -> None:
    """test_armv7m.c, which the suite builds for Cortex-M4 (compile only here)."""
    cc = shutil.which("arm-none-eabi-gcc")
    if cc is None:
        pytest.skip("arm-none-eabi-gcc not found (python3 dev.py setup installs it)")
    src = SUITE / "c" / "test_armv7m.c"
    cmd = [cc, *FLAGS, "-mcpu=cortex-m4", "-mthumb", f"-I{outputs[who]}", "-c", str(src)]
    done = subprocess.run([*cmd, "-o", str(tmp_path / "armv7m.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
