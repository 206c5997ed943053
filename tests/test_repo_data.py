"""The suite carries its data: nothing reaches for a folder beside the checkout.

A user has the clone and nothing else, so every file a test or a benchmark reads lives
under the repository (test data in ``tests/data``).  The scan below fails on code that
names ``../shared`` or joins a path that climbs above the repository's root; the English
word "shared" in a comment or a name is fine.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "benchmarks", ".ci", "dev.py")
# Data, not code; and this file, whose examples are what the scan looks for.
SKIPPED = ("tests/data/", "tests/fuzz/corpus/", "tests/test_repo_data.py")
SUFFIXES = {".py", ".c", ".h", ".sh", ""}  # "" for scripts such as .ci/run
DATA = REPO / "tests" / "data"

# A sibling folder named in any text, comments included ("../shared", "..\\shared").
_SIBLING = re.compile(r"\.\.[/\\]+shared\b")
# Python: "shared" or ".." joined as a path part (`X / "shared"`, `".." / X`, joinpath, join).
_QUOTED = r"""[rbRB]{0,2}(?:"(?:shared|\.\.)"|'(?:shared|\.\.)')"""
_JOINED = re.compile(
    rf"/\s*{_QUOTED}|{_QUOTED}\s*/|joinpath\([^)]*{_QUOTED}|os\.path\.join\([^)]*{_QUOTED}"
)
# Python: a walk up from this file, `Path(__file__).resolve().parents[2].parent`.
_UP = re.compile(
    r"Path\(\s*__file__\s*\)(?:\.resolve\(\)|\.absolute\(\))*((?:\.parents?\b(?:\[\d+\])?)+)"
)
_DIRNAME_UP = re.compile(
    r"((?:os\.path\.dirname\(\s*)+)(?:os\.path\.(?:abspath|realpath)\(\s*)?__file__"
)
# Python: a folder of one machine (`"/work/main/.venv-nunavut-3.1"`), not of this clone.
_MACHINE = re.compile(r"""["'](?:/work|/home|/root|/Users)/""")
# Python: the parent of a name that holds the repository's root.
_ROOT_PARENT = re.compile(r"\b_?(?:REPO|ROOT|REPO_ROOT)\.parents?\b")
# Shell: above the working copy (`$PWD/..`, `$(dirname "$0")/../..` from .ci/).
_SHELL_UP = re.compile(r"\$\{?PWD\}?/\.\.|dirname \"\$0\"\)/\.\./\.\.")


def _ups(chain: str) -> int:
    """How many folders ``.parent`` / ``.parents[k]`` steps climb from the file itself."""
    return sum(int(k) + 1 if k else 1 for k in re.findall(r"\.parents?(?:\[(\d+)\])?", chain))


def beside_checkout(rel: str, text: str) -> list[str]:
    """``line: reason`` for each place in ``text`` (the file at ``rel``) that leaves the repo."""
    depth = len(Path(rel).parts)  # Path(__file__) climbs this many steps to the root
    found: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        if _SIBLING.search(line):
            found.append(f"{n}: names a folder beside the checkout")
        if rel.endswith(".py"):
            if _JOINED.search(line):
                found.append(f'{n}: joins "shared" or ".." into a path')
            if any(_ups(m.group(1)) > depth for m in _UP.finditer(line)):
                found.append(f"{n}: climbs above the repository from __file__")
            if any(m.group(1).count("dirname") > depth for m in _DIRNAME_UP.finditer(line)):
                found.append(f"{n}: climbs above the repository from __file__")
            if _MACHINE.search(line):
                found.append(f"{n}: names a folder of one machine")
            if _ROOT_PARENT.search(line):
                found.append(f"{n}: takes the parent of the repository's root")
        elif _SHELL_UP.search(line):
            found.append(f"{n}: climbs above the working copy")
    return found


def _scanned_files() -> list[Path]:
    out: list[Path] = []
    for top in SCANNED:
        base = REPO / top
        for path in [base] if base.is_file() else sorted(base.rglob("*")):
            rel = path.relative_to(REPO).as_posix()
            if not path.is_file() or path.suffix not in SUFFIXES or "__pycache__" in rel:
                continue
            if not rel.startswith(SKIPPED):
                out.append(path)
    return out


def test_no_code_reads_beside_the_checkout() -> None:
    files = _scanned_files()
    assert REPO / "dev.py" in files and REPO / ".ci" / "run" in files
    assert REPO / "tests" / "dsdl" / "_support.py" in files
    found = [
        f"{path.relative_to(REPO).as_posix()}:{hit}"
        for path in files
        for hit in beside_checkout(
            path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8", errors="replace")
        )
    ]
    assert not found, "the suite must need nothing beside the clone:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("rel", "line"),
    [
        ("tests/dsdl/_support.py", 'PUBLIC = REPO / ".." / "shared" / "dsdl"'),
        ("tests/evalue/x.py", 'GOLDEN = Path(__file__).resolve().parents[2].parent / "evalue"'),
        ("tests/evalue/x.py", "HERE = Path(__file__).resolve().parents[3]"),
        ("tests/evalue/x.py", "up = Path(__file__).parent.parent.parent.parent"),
        ("tests/x.py", "d = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))"),
        ("benchmarks/b.py", "DATA = ROOT.parent / 'data'"),
        ("tests/x.py", 'NNVG = Path("/work/main/.venv-nunavut-3.1/bin/nnvg")'),
        ("benchmarks/b.py", "DATA = REPO.joinpath('..', 'data')"),
        ("benchmarks/b.py", "DATA = os.path.join(ROOT, 'shared', 'dsdl')"),
        ("tests/x.py", "# the golden vectors are in ../shared/evalue"),
        ("tests/x.c", '#include "../../shared/evalue/x.h"'),
        (".ci/run", 'cp -r "$PWD/../data" .'),
        (".ci/run", 'cd "$(dirname "$0")/../.."'),
    ],
)
def test_the_scan_finds_a_folder_beside_the_checkout(rel: str, line: str) -> None:
    assert beside_checkout(rel, line), line


@pytest.mark.parametrize(
    ("rel", "line"),
    [
        ("tests/x.py", "# the machine is shared and noisy"),
        ("tests/x.py", "def test_shared_bytes_objects_are_never_filled_in_place() -> None:"),
        ("tests/x.py", 'out = tmp_path_factory.mktemp("shared-output")'),
        ("tests/x.py", "shared: dict[str, int] = {}"),
        ("tests/dsdl/_support.py", "REPO = Path(__file__).resolve().parents[2]"),
        ("tests/dsdl/_support.py", "HERE = Path(__file__).parent.parent.parent"),
        ("tests/x.py", 'b"\\x00location=../w.bin\\n"'),
        ("tests/x.py", 'load(inner / "m.ort", external_data="../m.ort.data")'),
        ("tests/x.py", 'PUBLIC = REPO / "tests" / "data" / "dsdl"'),
        ("tests/x.py", "src = str(Path(wireplan.__file__).parents[1])"),
        (".ci/run", 'cd "$(dirname "$0")/.."'),
    ],
)
def test_the_scan_lets_the_word_and_the_repository_be(rel: str, line: str) -> None:
    assert beside_checkout(rel, line) == []


def test_the_data_is_in_the_repository() -> None:
    public = DATA / "dsdl" / "public_regulated_data_types"
    assert sorted(p.name for p in public.iterdir()) == ["LICENSE", "README.md", "reg", "uavcan"]
    assert "MIT License" in (public / "LICENSE").read_text(encoding="utf-8")
    assert len(list(public.rglob("*.dsdl"))) > 200
    evalue = DATA / "evalue"
    assert sorted(p.name for p in evalue.iterdir()) == ["README.md", "java_golden.tsv"]
    # Nothing of it is hidden from git by a pattern of .gitignore (`*.onnx`, `*.ort`, ...).
    if shutil.which("git") and (REPO / ".git").exists():
        files = [p.relative_to(REPO).as_posix() for p in DATA.rglob("*") if p.is_file()]
        done = subprocess.run(
            ["git", "check-ignore", "--no-index", "--stdin"],
            cwd=REPO,
            input="\n".join(files),
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1 and done.stdout == "", done.stdout  # 1: nothing ignored
