"""Every code block of README.md and docs/*.md runs, as a newcomer would run it.

One test per block, named by its page and the line of its opening fence
(``README.md:45``, ``docs/evalue.md:11``), so a failure names the block.  Each test runs in
a copy of the docs workspace (tests/docs_fixtures.py: ``model.onnx``, ``model.ort``, record
files, the public regulated DSDL types as ``public_regulated_data_types``) with this
environment's ``wireplan`` and ``python`` first on ``PATH``.  By the block's language:

``python``
    Executed in a fresh interpreter.  The python blocks of one page are one session: the
    blocks before it run first, in order and in the same namespace, as in a doctest; an
    error in an earlier block is reported by that block's own test, not this one.
    Tracebacks name the Markdown page and line.
``sh``, ``bash``, ``shell``
    One command a line (``\\`` continues it).  What runs: ``wireplan ...``,
    ``python -m wireplan ...``, ``gcc``/``cc``, ``./program``, ``echo``, ``cat`` (also in
    pipes and ``&&`` lists); each must exit 0, or with N when its comment says ``exit N``.
    ``export`` and ``cd`` lines hold for the lines after them on the page.  What does not
    run, each for the reason in :data:`NOT_RUN`: ``pip`` (installs; this environment has
    the packages), ``source`` / ``.`` (activates an environment; this test runs in one),
    ``git`` (network; the workspace holds the clone), ``python3 dev.py NAME`` (sets up
    environments, minutes; NAME must be one of dev.py's commands) and other repository
    scripts (``python tests/fuzz/run.py``; the script must exist).  A line of any other
    command fails the test: say here how to test it.  The shell blocks of one page are one
    session, as the python blocks are.
``console``
    Lines starting ``$ `` are commands (as above); the lines after one are its expected
    output, compared with what it prints on a terminal (a pty, as a user sees it: ``dsdl
    decode`` prints YAML there).  An expected line ``wireplan: error: ...`` is compared
    with the command's error lines on stderr, and the command must then fail (exit 1).
``c``
    A complete program (with ``main``) is compiled by gcc with ``-std=c11 -pedantic -Wall
    -Wextra -Werror`` (and ASan + UBSan where gcc has them) against the C headers that
    ``wireplan dsdl compile public_regulated_data_types/uavcan --language c -o out``
    writes, then run; its output must equal the ``text`` block that follows it on the
    page.  A first line ``/* NAME.c ... */`` names its file, which the page's shell
    blocks can then compile as the page says.  A C fragment must be marked (below).
anything else (``text``, ``json``, ``yaml``, no language)
    Shown, not run.

A block that cannot run here is marked on the line before its fence with
``<!-- docs-test: skip (the reason) -->``; marked blocks are not collected, and
:func:`test_skip_markers` lists them and fails on a marker without a reason.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import ptyrun
from docs_fixtures import build

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
TIMEOUT = 300

PYTHON = {"python", "py", "python3"}
SHELL = {"sh", "bash", "shell"}
CONSOLE = {"console", "shell-session"}
C = {"c"}
CPP = {"cpp", "c++"}
RUNNABLE = PYTHON | SHELL | CONSOLE | C | CPP

# Command words whose lines run (every segment of a pipe or list must be one of them).
RUN_WORDS = {"wireplan", "gcc", "cc", "g++", "echo", "cat"}
STATE_WORDS = {"export", "cd"}
NOT_RUN = {
    "pip": "installs packages; the environment running this test has them",
    "source": "activates an environment; this test runs in one",
    ".": "activates an environment; this test runs in one",
    "git": "needs the network; the workspace holds the clone (tests/data)",
    "dev.py": "sets up environments (minutes); the command it names must exist",
    "script": "a script of the repository, not run here; it must exist",
}
# The C headers the C examples include, written as the pages say.
C_HEADERS = "wireplan dsdl compile public_regulated_data_types/uavcan --language c -o out"
C_FLAGS = ["-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1"]
CPP_HEADERS = "wireplan dsdl compile public_regulated_data_types/uavcan --language cpp -o out"
CPP_FLAGS = ["-std=c++17", *C_FLAGS[1:]]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "print_stacktrace=1"}

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)[^`]*$")
_MARKER = re.compile(r"<!--\s*docs-test:(?P<body>.*?)-->")
_SKIP = re.compile(r"^\s*skip\s*(?:\((?P<reason>.*)\))?\s*$")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_EXIT = re.compile(r"#.*\bexit (?P<code>\d+)\b[^'\"]*$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    marker: str | None  # the body of a `<!-- docs-test: ... -->` on the line before

    @property
    def name(self) -> str:
        return f"{_rel(self.page)}:{self.line}"


def _rel(page: Path) -> str:
    return page.relative_to(REPO).as_posix() if page.is_relative_to(REPO) else page.name


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page (fences may be indented, as in lists)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not (
            lines[i].strip().startswith(fence) and lines[i].strip().strip(fence[0]) == ""
        ):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        before = lines[start - 1] if start > 0 else ""
        marked = _MARKER.search(before)
        found.append(
            Block(
                page,
                start + 1,
                m["info"].lower(),
                "\n".join(body) + "\n",
                marked["body"].strip() if marked else None,
            )
        )
    return found


ALL = [b for page in PAGES for b in blocks_of(page)]
RUN = [b for b in ALL if b.lang in RUNNABLE and b.marker is None]


# ---------------------------------------------------------------- the workspace


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs workspace, built once per process (tests/docs_fixtures.py)."""
    return build(tmp_path_factory.mktemp("docs-template") / "ws")


@pytest.fixture(scope="session")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One DSDL cache for every example of this run (the first compiles, the rest import)."""
    return tmp_path_factory.mktemp("docs-dsdl-cache")


@pytest.fixture
def ws(template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(template, tmp_path / "ws", symlinks=True))


@pytest.fixture
def env(cache: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("CYPHAL_PATH", "PYTHONPATH")}
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    e["WIREPLAN_CACHE_DIR"] = str(cache)
    e["PYCYPHAL_PATH"] = str(cache / "pycyphal")  # pycyphal's own files, not in ~/.pycyphal
    e["COLUMNS"] = "100"
    return e


# ---------------------------------------------------------------- python

_RUNNER = r"""
import json, sys
steps = json.load(sys.stdin)
ns = {"__name__": "__main__"}
for i, (path, line, src) in enumerate(steps):
    if i == len(steps) - 1:
        exec(compile("\n" * line + src, path, "exec"), ns)
    else:
        try:
            exec(compile("\n" * line + src, path, "exec"), ns)
        except BaseException as e:
            print(f"(an earlier block, line {line}, failed: {e!r})", file=sys.stderr)
"""


def run_python(block: Block, ws: Path, env: dict[str, str]) -> None:
    steps = [
        [str(b.page), b.line, b.text]
        for b in RUN
        if b.page == block.page and b.lang in PYTHON and b.line <= block.line
    ]
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER],
        input=json.dumps(steps),
        capture_output=True,
        text=True,
        cwd=ws,
        env=env,
        timeout=TIMEOUT,
    )
    if done.returncode != 0:
        pytest.fail(f"{block.name} failed:\n{done.stdout[-3000:]}{done.stderr[-6000:]}")


# ---------------------------------------------------------------- shell


@dataclass
class Command:
    line: int  # on the page
    text: str
    expected: list[str]  # console: the output shown after it


def commands_of(block: Block) -> list[Command]:
    console = block.lang in CONSOLE
    out: list[Command] = []
    pending = ""
    for k, raw in enumerate(block.text.splitlines()):
        line = block.line + 1 + k
        if console and not pending and not raw.startswith("$ "):
            if out:
                out[-1].expected.append(raw)
            continue
        text = raw[2:] if console and not pending else raw
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        text, pending = pending + text, ""
        if text.strip() and not text.lstrip().startswith("#"):
            out.append(Command(line, text.strip(), []))
    return out


def segments(text: str) -> list[list[str]]:
    """The simple commands of a line: words split at pipes, lists and redirections."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    out: list[list[str]] = [[]]
    skip_next = False
    for word in lexer:
        if word in ("|", "||", "&&", ";", "&"):
            out.append([])
        elif word in (">", ">>", "<", "2>", "2>&1"):
            skip_next = True
        elif skip_next:
            skip_next = False
        else:
            out[-1].append(word)
    return [s for s in out if s]


def command_word(words: list[str]) -> list[str]:
    """The words from the command name on (``VAR=value`` prefixes left out)."""
    i = 0
    while i < len(words) and _ASSIGN.match(words[i]):
        i += 1
    return words[i:]


DEV_HELP: list[str] = []


def classify(text: str) -> tuple[str, str]:
    """("run" | "state" | "not-run", why) for one command line; fails on an unknown one."""
    segs = [command_word(s) for s in segments(text)]
    if not segs or not segs[0]:
        pytest.fail(f"cannot read the command {text!r}")
    head = segs[0]
    if head[0] in STATE_WORDS:
        return "state", ""

    def runs(words: list[str]) -> bool:
        if not words:
            return False
        if words[0] in RUN_WORDS or words[0].startswith("./"):
            return True
        return words[0] in PYTHON and words[1:3] == ["-m", "wireplan"]

    if all(runs(s) for s in segs):
        return "run", ""
    name = head[0]
    if name in PYTHON and head[1:2] == ["-m"] and len(head) > 2:
        name = head[2]
    if name in ("pip", "source", ".", "git"):
        return "not-run", NOT_RUN[name]
    if head[0] in PYTHON and len(head) > 1 and head[1].endswith(".py"):
        script = REPO / head[1]
        assert script.is_file(), f"{text!r}: {head[1]} is not a file of the repository"
        if head[1] == "dev.py" and len(head) > 2 and not head[2].startswith("-"):
            if not DEV_HELP:
                help_text = subprocess.run(
                    [sys.executable, str(script), "--help"], capture_output=True, text=True
                ).stdout
                DEV_HELP.append(help_text)
            assert f"dev.py {head[2]}" in DEV_HELP[0], f"{text!r}: dev.py has no {head[2]!r}"
            return "not-run", NOT_RUN["dev.py"]
        return "not-run", NOT_RUN["script"]
    pytest.fail(
        f"don't know how to test {text!r}: make it a wireplan command, or say in "
        "tests/test_docs.py (RUN_WORDS / NOT_RUN) how to"
    )


def _run_tty(script: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``script`` in bash with stdout on a terminal; (exit code, stdout, stderr)."""
    return ptyrun.run(["bash", "-c", script], terminal="stdout", cwd=cwd, env=env, timeout=TIMEOUT)


_C_NAME = re.compile(r"/\*\s*([\w.-]+\.c)\b")  # a C program's first line: /* name.c ...
_CPP_NAME = re.compile(r"//\s*([\w.-]+\.cpp)\b")  # a C++ program's: // name.cpp ...


def _program_name(b: Block) -> str | None:
    pattern = _C_NAME if b.lang in C else _CPP_NAME if b.lang in CPP else None
    m = pattern.match(b.text) if pattern else None
    return m[1] if m else None


def c_files(page: Path) -> dict[str, str]:
    """The C and C++ programs of a page that name their file on their first line."""
    files = {}
    for b in blocks_of(page):
        name = _program_name(b)
        if name:
            files[name] = b.text
    return files


def run_shell(block: Block, ws: Path, env: dict[str, str]) -> None:
    for name, text in c_files(block.page).items():
        (ws / name).write_text(text)
    state: list[str] = []
    earlier = [
        b for b in RUN if b.page == block.page and b.lang in SHELL | CONSOLE and b.line < block.line
    ]
    for b in earlier:  # the session so far; their own tests report their errors
        for cmd in commands_of(b):
            kind, _ = classify(cmd.text)
            if kind == "state":
                state.append(cmd.text)
            elif kind == "run":
                _run_tty("\n".join([*state, cmd.text]), ws, env)
    failures: list[str] = []
    for cmd in commands_of(block):
        kind, why = classify(cmd.text)
        if kind == "state":
            state.append(cmd.text)
            continue
        if kind == "not-run":
            print(f"line {cmd.line}: not run ({why}): {cmd.text}")
            continue
        code, out, err = _run_tty("set -o pipefail\n" + "\n".join([*state, cmd.text]), ws, env)
        failures += check(block, cmd, code, out, err)
    if failures:
        pytest.fail("\n\n".join(failures))


def check(block: Block, cmd: Command, code: int, out: str, err: str) -> list[str]:
    where = f"{_rel(block.page)}:{cmd.line}: {cmd.text}"
    expected = list(cmd.expected)
    while expected and not expected[-1].strip():
        expected.pop()
    want_errors = [x for x in expected if x.startswith("wireplan: error:")]
    m = _EXIT.search(cmd.text)
    want_code = int(m["code"]) if m else (1 if want_errors else 0)
    problems = []
    if code != want_code:
        problems.append(f"exit {code}, expected {want_code}")
    if block.lang in CONSOLE:
        got_errors = [x for x in err.splitlines() if x.startswith("wireplan: error:")]
        if got_errors != want_errors:
            problems.append(f"error lines:\n{got_errors}\nexpected:\n{want_errors}")
        want_out = [x for x in expected if not x.startswith("wireplan: error:")]
        if out.rstrip("\n").splitlines() != want_out:
            problems.append("stdout:\n" + out + "expected:\n" + "\n".join(want_out))
    if not problems:
        return []
    return [f"{where}\n" + "\n".join(problems) + f"\nstderr:\n{err[-4000:]}"]


# ---------------------------------------------------------------- C


@pytest.fixture(scope="session")
def sanitize(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """ASan + UBSan flags if this gcc links them, else none."""
    gcc = shutil.which(os.environ.get("CC", "gcc"))
    if gcc is None:
        pytest.skip("gcc not found")
    probe = tmp_path_factory.mktemp("sanitize") / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    cmd = [gcc, *SANITIZE, str(probe), "-o", str(probe.with_suffix(""))]
    ok = subprocess.run(cmd, capture_output=True).returncode == 0
    return SANITIZE if ok else []


def run_c(block: Block, ws: Path, env: dict[str, str], sanitize: list[str]) -> None:
    if "main(" not in block.text:
        pytest.fail(f"{block.name}: a C fragment; mark it `<!-- docs-test: skip (why) -->`")
    following = [b for b in blocks_of(block.page) if b.line > block.line]
    assert following and following[0].lang == "text", (
        f"{block.name}: a C program is followed by a ```text block of its output"
    )
    cpp = block.lang in CPP
    code, _, err = _run_tty(CPP_HEADERS if cpp else C_HEADERS, ws, env)
    assert code == 0, err
    src = ws / (_program_name(block) or ("example.cpp" if cpp else "example.c"))
    src.write_text(block.text)
    exe = src.with_suffix("")
    if cpp:
        compiler, flags = shutil.which(os.environ.get("CXX", "g++")) or "g++", CPP_FLAGS
    else:
        compiler, flags = shutil.which(os.environ.get("CC", "gcc")) or "gcc", C_FLAGS
    cmd = [compiler, *flags, *sanitize, "-I", str(ws / "out"), str(src), "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ws)
    if done.returncode != 0:
        pytest.fail(f"{block.name} does not compile:\n{' '.join(cmd)}\n{done.stderr[-6000:]}")
    ran = subprocess.run(
        [str(exe)], capture_output=True, text=True, cwd=ws, env={**env, **SANITIZER_ENV}
    )
    assert ran.returncode == 0, f"{block.name} exited {ran.returncode}\n{ran.stderr[-6000:]}"
    assert ran.stdout == following[0].text, (
        f"{block.name} printed:\n{ran.stdout}\nthe page (line {following[0].line}) says:\n"
        f"{following[0].text}"
    )


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("block", RUN, ids=[b.name for b in RUN])
def test_block(block: Block, request: pytest.FixtureRequest) -> None:
    ws: Path = request.getfixturevalue("ws")
    env: dict[str, str] = request.getfixturevalue("env")
    if block.lang in PYTHON:
        run_python(block, ws, env)
    elif block.lang in C | CPP:
        run_c(block, ws, env, request.getfixturevalue("sanitize"))
    else:
        run_shell(block, ws, env)


def marker_problems(pages: list[Path]) -> tuple[list[str], list[str]]:
    """(problems, the blocks marked skip with their reasons) of the markers on ``pages``."""
    problems, skipped = [], []
    for page in pages:
        fences = {b.line - 1: b for b in blocks_of(page)}
        for n, text in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            m = _MARKER.search(text)
            if m is None:
                continue
            where, body = f"{_rel(page)}:{n}", m["body"]
            skip = _SKIP.match(body)
            if skip is None or not (skip["reason"] or "").strip():
                problems.append(f"{where}: `docs-test:{body}` is not `skip (the reason)`")
            elif n not in fences:
                problems.append(f"{where}: a docs-test marker not on the line before a fence")
            elif fences[n].lang not in RUNNABLE:
                problems.append(f"{where}: a ```{fences[n].lang or '(none)'} block is not run")
            else:
                skipped.append(f"{fences[n].name}: not run: {skip['reason'].strip()}")
    return problems, skipped


def test_skip_markers() -> None:
    """Every marker says skip and why, on the line before a block that would run."""
    problems, skipped = marker_problems(PAGES)
    print("\n".join(skipped))
    assert not problems, "\n".join(problems)


def test_marker_problems_are_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs-test: skip (needs a GPU) -->\n```python\nimport cupy\n```\n"
        "<!-- docs-test: skip -->\n```sh\nwireplan demo\n```\n"
        "<!-- docs-test: skip (no reason to) -->\n```text\nout\n```\n"
        "<!-- docs-test: skip (floating) -->\n\ntext\n"
    )
    problems, skipped = marker_problems([page])
    assert skipped == ["page.md:2: not run: needs a GPU"]
    assert [p.split(":")[1] for p in problems] == ["5", "9", "13"]
    assert [b.lang for b in blocks_of(page) if b.marker is None] == []


def test_unknown_commands_fail() -> None:
    """A shell line the test cannot classify fails, rather than pass unrun."""
    assert classify("CYPHAL_PATH=x wireplan dsdl encode T '{a: 1}' | cat")[0] == "run"
    assert classify("python3 dev.py test")[0] == "not-run"
    assert classify("export A=1")[0] == "state"
    with pytest.raises(pytest.fail.Exception, match="don't know how to test"):
        classify("rm -rf out")
    with pytest.raises(AssertionError, match=r"dev\.py has no"):
        classify("python3 dev.py frobnicate")


def test_pages_have_runnable_blocks() -> None:
    """The scan finds the blocks that issue 21 names: README's python and its `dsdl encode`
    line (run as written), and the complete C and C++ programs of docs/dsdl-c.md."""
    readme = [b for b in RUN if b.page.name == "README.md"]
    assert {"python", "sh"} <= {b.lang for b in readme}
    lines = [c.text for b in readme if b.lang in SHELL for c in commands_of(b)]
    encode = [t for t in lines if t.startswith("wireplan dsdl encode ")]
    assert encode and all(classify(t)[0] == "run" for t in encode)
    c_programs = [b for b in RUN if b.lang in C and b.page.name == "dsdl-c.md"]
    assert c_programs and all("int main(void)" in b.text for b in c_programs)
    cpp_programs = [b for b in RUN if b.lang in CPP and b.page.name == "dsdl-c.md"]
    assert cpp_programs and all("int main()" in b.text for b in cpp_programs)
