"""nunavut's own C++ verification suite, built against nunavut 3.1's C++ headers and wireplan's.

The suite's files are vendored unmodified (tests/dsdl/nunavut_verification/README.md says
which and why some are left out).  Each gtest file is compiled with the suite's warning
flags against each generator's output for the suite's namespaces (its C++ headers, and the
C headers that test_serialization.cpp reads back) in a language flavour the suite builds
it for (c++17; the allocator files: c++17-pmr, c++20-pmr, cetl++14-17, as the suite does),
run, and its per-test lines compared: every test that passes on nunavut's headers must pass
on wireplan's.  A build must also be free of warnings, as the suite's -Werror demands.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import wireplan.dsdl as dsdl

from ._producers import nnvg_path, nnvg_standard
from ._support import UAVCAN

HERE = Path(__file__).resolve().parent
SUITE = HERE / "nunavut_verification"
CPP = SUITE / "cpp"
REGULATED = SUITE / "types" / "regulated"
ROOTS = [REGULATED, SUITE / "types" / "mymsgs", UAVCAN]
SHIM = HERE / "c" / "shim"  # a stand-in for CETL's cetlpf.hpp (std names under C++17)
CETL = HERE / "cetl" / "include"  # CETL's headers (tests/dsdl/cetl/README.md)
# The suite's C++ flags (verification/cmake/compiler_flag_sets/common.cmake: its C set, its
# C++ additions, -Wno-stringop-overflow for GNU) and the -Wno-deprecated-declarations its
# CMakeLists adds to the C++ tests; -O1 for its Debug build's -Og.  -Werror is the suite's
# too, but here each build's warnings are asserted empty instead (test_build_has_no_warning),
# so that warnings in one producer's headers fail that test and the outcomes are still
# compared.  -Wno-c++17-attribute-extensions is clang's: g++ ignores it (it only names it
# in a note when another diagnostic is printed), so it stays as the suite has it.
FLAGS = [
    "-pedantic", "-Wall", "-Wextra", "-Wshadow", "-Wfloat-equal",
    "-Wconversion", "-Wunused-parameter", "-Wunused-variable", "-Wunused-value",
    "-Wcast-align", "-Wmissing-declarations", "-Wmissing-field-initializers",
    "-Wdouble-promotion", "-Wswitch-enum", "-Wtype-limits",
    "-Wsign-conversion", "-Wsign-promo", "-Wold-style-cast", "-Wzero-as-null-pointer-constant",
    "-Wnon-virtual-dtor", "-Woverloaded-virtual", "-Wno-c++17-attribute-extensions",
    "-Wno-stringop-overflow", "-Wno-deprecated-declarations",
]  # fmt: skip
GTEST = ["-lgmock", "-lgtest", "-lgtest_main", "-pthread"]
# Test counts per file ("[ RUN      ]" lines): the suite is what was vendored, all of it ran.
EXPECTED = {
    "test_compiles": 165,
    "test_constant": 3,
    "test_large_bitset": 1,
    "test_serialization": 5,
    "test_unionant": 9,
    "test_unionant_c++14": 6,
    "test_array_c++17-pmr": 4,
    "test_unionant_pmr": 5,
    "test_array_cetl++14-17": 4,
}
# Each flavour (nnvg's --language-standard): the -std its CMake build takes from the name
# (verification/cmake/utils.cmake) and what stands in for its CETL include directory.
FLAVOURS = {
    "c++17": ("c++17", SHIM),
    "c++17-pmr": ("c++17", CETL),
    "c++20-pmr": ("c++20", CETL),
    "cetl++14-17": ("c++14", CETL),
}
# The flavours the suite's verification/CMakeLists.txt builds the allocator files for, and
# for test_constant, test_large_bitset and test_unionant some of the allocator flavours it
# builds them for too; the other files are built for c++17 here (the suite builds them for
# more).
BUILT_FOR = {
    "test_constant": ["c++17", "c++17-pmr"],
    "test_large_bitset": ["c++17", "c++17-pmr"],
    "test_unionant": ["c++17", "c++17-pmr", "cetl++14-17"],
    "test_array_c++17-pmr": ["c++17-pmr", "c++20-pmr"],
    "test_unionant_pmr": ["cetl++14-17", "c++17-pmr", "c++20-pmr"],
    "test_array_cetl++14-17": ["cetl++14-17"],
}
CASES = [(test, flavour) for test in EXPECTED for flavour in BUILT_FOR.get(test, ["c++17"])]
PRODUCERS = ["nunavut", "wireplan"]
_RESULT = re.compile(r"^\[ +(OK|FAILED) +\] (\S+) \(\d+ ms\)$", re.MULTILINE)
_RUN = re.compile(r"^\[ RUN +\] (\S+)$", re.MULTILINE)


@dataclass
class Build:
    exe: Path
    ok: bool
    stderr: str = field(repr=False)

    def warnings(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if "warning:" in line]


def _tool(name: str, install: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} not found ({install})")
    return found


def _nnvg(out: Path, args: list[str]) -> subprocess.Popen[str]:
    nnvg = shutil.which(nnvg_path())
    if nnvg is None:
        pytest.skip(f"nunavut 3.1's nnvg not found ({nnvg_path()}; set WIREPLAN_NNVG)")
    lookup = [arg for root in ROOTS for arg in ("--lookup-dir", str(root))]
    cmd = [nnvg, *args, "--outdir", str(out), *lookup]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def includes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], list[Path]]:
    """Each producer's C++ headers of the suite's namespaces per flavour (and, for c++17,
    its C headers of ``regulated`` and what they use, which test_serialization.cpp includes
    beside them), by (producer, flavour).

    The nnvg options are those of the suite's CMakeLists (add_cyphal_library): the flavour
    with the experimental languages allowed, and C with ``cpp_safe_c=true`` when the suite
    verifies C++; --enable-serialization-asserts, which only its Debug builds add (with
    NUNAVUT_ASSERT=EXPECT_TRUE), is left out, as in test_dsdl_nunavut_suite.py.  For the
    allocator flavours nnvg writes only what their files include (``regulated``, ``mymsgs``
    and uavcan.register.Value: a third of its time for all of ``uavcan``), and for
    cetl++14-17 with nunavut 3.1.0's CETL class name corrected (_producers.nnvg_standard)."""
    base = tmp_path_factory.mktemp("cpp-suite")
    out = {(who, flavour): [base / who / flavour] for who in PRODUCERS for flavour in FLAVOURS}
    out["nunavut", "c++17"].append(base / "nunavut" / "c")
    out["wireplan", "c++17"].append(base / "wireplan" / "c")
    alloc = [str(REGULATED), str(ROOTS[1]), f"{UAVCAN}:register/Value.1.0.dsdl",
             f"{UAVCAN}:metatransport/can/ArbitrationID.0.1.dsdl",
             f"{UAVCAN}:node/port/SubjectIDList.0.1.dsdl"]  # fmt: skip

    def nnvg_cpp(flavour: str) -> subprocess.Popen[str]:
        targets = list(map(str, ROOTS)) if flavour == "c++17" else alloc
        # the targets first: a --configuration option takes every argument up to the next option
        return _nnvg(out["nunavut", flavour][0], [*targets, *nnvg_standard(flavour, base)])

    c_args = ["--target-language", "c", str(REGULATED), "--option", "cpp_safe_c=true"]
    theirs = [_nnvg(out["nunavut", "c++17"][1], c_args), *map(nnvg_cpp, FLAVOURS)]
    for flavour in FLAVOURS:  # while nnvg runs
        dsdl.compile(
            ROOTS,
            output=out["wireplan", flavour][0],
            language="cpp",
            language_standard=flavour,
            durable=False,
        )
    dsdl.compile(
        REGULATED, lookup=UAVCAN, output=out["wireplan", "c++17"][1], language="c", durable=False
    )
    for proc in theirs:
        log, _ = proc.communicate()
        assert proc.returncode == 0, f"{proc.args!r}\n{log[-6000:]}"
    return out


@pytest.fixture(scope="module")
def builds(
    includes: dict[tuple[str, str], list[Path]], tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str, str], Build]:
    """Every suite file built for its flavours against each producer's headers, two
    compilers at a time, by (producer, file, flavour)."""
    gxx = _tool("g++", "Debian's g++")
    libs = ["libgtest.a", "libgtest_main.a", "libgmock.a"]
    where = [
        subprocess.run([gxx, f"-print-file-name={lib}"], capture_output=True, text=True)
        for lib in libs
    ]
    if not all(Path(done.stdout.strip()).is_absolute() for done in where):
        pytest.skip(
            "googletest not found (libgtest-dev, libgmock-dev; python3 dev.py setup installs them)"
        )
    base = tmp_path_factory.mktemp("cpp-suite-bin")

    def build(key: tuple[str, str, str]) -> Build:
        who, test, flavour = key
        exe = base / f"{test}-{flavour}-{who}"
        std, cetl_dir = FLAVOURS[flavour]
        dirs = [f"-I{d}" for d in [*includes[who, flavour], cetl_dir]]
        src = str(CPP / f"{test}.cpp")
        cmd = [gxx, f"-std={std}", *FLAGS, "-O1", *dirs, src, "-o", str(exe), *GTEST]
        done = subprocess.run(cmd, capture_output=True, text=True)
        return Build(exe, done.returncode == 0, done.stderr)

    keys = [(who, test, flavour) for test, flavour in CASES for who in PRODUCERS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(keys, pool.map(build, keys), strict=True))


def _warning_summary(build: Build) -> str:
    kinds: dict[str, int] = {}
    for line in build.warnings():
        kind = line.rsplit("[", 1)[-1].rstrip("]") if line.endswith("]") else "?"
        kinds[kind] = kinds.get(kind, 0) + 1
    return f"{len(build.warnings())} warnings {kinds}:\n{build.stderr[:4000]}"


def test_every_vendored_file_runs() -> None:
    """Each vendored test file is built here (test_armv7m.cpp by test_armv7m_builds)."""
    assert sorted(p.stem for p in CPP.glob("*.cpp")) == sorted([*EXPECTED, "test_armv7m"])


@pytest.mark.parametrize(("test", "flavour"), CASES)
@pytest.mark.parametrize("who", PRODUCERS)
def test_build_has_no_warning(
    builds: dict[tuple[str, str, str], Build], who: str, test: str, flavour: str
) -> None:
    """The suite's flags and -Werror: nunavut's headers pass (the flags are the suite's)."""
    build = builds[who, test, flavour]
    assert build.ok, build.stderr[-4000:]
    assert not build.warnings(), _warning_summary(build)


def _outcomes(build: Build, tmp: Path) -> tuple[list[str], dict[str, str], str]:
    """(tests run, their results by name, the output) of one gtest binary."""
    assert build.ok, f"{build.exe.name} did not build:\n{build.stderr[-4000:]}"
    ran = subprocess.run(
        [build.exe, "--gtest_color=no"], capture_output=True, text=True, timeout=300, cwd=tmp
    )
    out = ran.stdout + ran.stderr
    return _RUN.findall(ran.stdout), {name: r for r, name in _RESULT.findall(ran.stdout)}, out


@pytest.mark.parametrize(("test", "flavour"), CASES)
def test_every_test_nunavut_passes_passes_on_ours(
    builds: dict[tuple[str, str, str], Build], tmp_path: Path, test: str, flavour: str
) -> None:
    (their_run, theirs, their_out), (our_run, ours, our_out) = (
        _outcomes(builds[who, test, flavour], tmp_path) for who in PRODUCERS
    )
    assert len(their_run) == EXPECTED[test] == len(our_run), (
        f"{their_out[-3000:]}\n{our_out[-3000:]}"
    )
    missing = [name for name in their_run if theirs.get(name) == "OK" and ours.get(name) != "OK"]
    assert not missing, f"passes on nunavut's headers, not on ours: {missing}\n{our_out[-6000:]}"


@pytest.mark.parametrize("who", PRODUCERS)
def test_armv7m_builds(
    includes: dict[tuple[str, str], list[Path]], tmp_path: Path, who: str
) -> None:
    """test_armv7m.cpp, which the suite builds for Cortex-M7 (compile only here), with the
    flags of its arm-none-eabi flag set (release: -Os), free of warnings."""
    cxx = _tool("arm-none-eabi-g++", "python3 dev.py setup installs it")
    mcu = ["-mcpu=cortex-m7", "-mthumb", "-mlittle-endian", "-Os", "-fno-rtti", "-fno-exceptions"]
    mcu += ["-fno-unwind-tables", "-fno-use-cxa-atexit", "-fdata-sections", "-ffunction-sections"]
    src = CPP / "test_armv7m.cpp"
    dirs = (f"-I{d}" for d in includes[who, "c++17"])
    cmd = [cxx, "-std=c++17", *FLAGS, *mcu, *dirs, "-c", str(src)]
    done = subprocess.run([*cmd, "-o", str(tmp_path / "armv7m.o")], capture_output=True, text=True)
    build = Build(tmp_path / "armv7m.o", done.returncode == 0, done.stderr)
    assert build.ok, done.stderr[-4000:]
    assert not build.warnings(), _warning_summary(build)
