#!/usr/bin/env python3
"""Set up a development environment and run wireplan's main jobs.

    python3 dev.py demo        the built-in example through every format
    python3 dev.py test [ARGS] ruff, mypy --strict and pytest (ARGS go to pytest)
    python3 dev.py bench NAME  run benchmarks/bench_NAME.py
    python3 dev.py setup       only create/refresh the environment

Needs nothing but python3 (3.11+). The environment is `.venv/` next to this
file (or $WIREPLAN_VENV); it is created on first use and refreshed when
pyproject.toml or this file change.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("WIREPLAN_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".wireplan-setup"

# torch is optional for users; the test suite covers wireplan.evalue.torch, so
# the development environment has it. The pin is the CPU build that lies on
# the development machines: a looser spec would make pip fetch a CUDA build.
TORCH = "torch==2.13.0"


def _say(msg: str) -> None:
    print(f"[dev.py] {msg}", flush=True)


def _run(*cmd: str | Path) -> int:
    return subprocess.call([str(c) for c in cmd], cwd=ROOT)


def _fingerprint() -> str:
    h = hashlib.sha256()
    for name in ("pyproject.toml", "dev.py"):
        h.update((ROOT / name).read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()


def setup() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this file runs on any python3
        sys.exit("wireplan needs Python 3.11 or newer")
    if not PY.exists():
        _say(f"creating {VENV}")
        venv.EnvBuilder(with_pip=True, clear=VENV.exists()).create(VENV)
    want = _fingerprint()
    if STAMP.exists() and STAMP.read_text() == want:
        return
    log = VENV / "setup.log"
    _say(f"installing wireplan and its test peers (a few minutes the first time; log: {log})")
    pip = [str(PY), "-m", "pip", "--disable-pip-version-check"]
    with log.open("w") as out:
        for args in (["install", "--upgrade", "pip"], ["install", "-e", ".[test]", TORCH]):
            code = subprocess.call(pip + args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
            if code:
                sys.stdout.write(log.read_text()[-5000:])
                _say(f"pip {' '.join(args)} failed ({code}); the whole log is in {log}")
                sys.exit(code)
    STAMP.write_text(want)


def test(args: list[str]) -> int:
    steps: list[tuple[str, list[str | Path]]] = [
        ("ruff check", [BIN / "ruff", "check", "src", "tests", "benchmarks", "dev.py"]),
        (
            "ruff format",
            [BIN / "ruff", "format", "--check", "src", "tests", "benchmarks", "dev.py"],
        ),
        ("mypy --strict", [BIN / "mypy", "--strict"]),
        ("pytest", [BIN / "pytest", "-n", "auto", "--dist", "loadfile", *args]),
    ]
    failed = []
    for name, cmd in steps:
        _say(name)
        if _run(*cmd):
            failed.append(name)
    if failed:
        _say("FAILED: " + ", ".join(failed))
        return 1
    _say("all checks passed")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in ("setup", "demo", "test", "bench"):
        print(f"dev.py: unknown command {command!r}\n{__doc__}", file=sys.stderr)
        return 2
    setup()
    if command == "setup":
        return 0
    if command == "demo":
        return _run(BIN / "wireplan", "demo", *rest)
    if command == "bench":
        if not rest:
            names = sorted(
                p.stem.removeprefix("bench_") for p in (ROOT / "benchmarks").glob("bench_*.py")
            )
            print("benchmarks: " + ", ".join(names))
            return 2
        return _run(PY, ROOT / "benchmarks" / f"bench_{rest[0]}.py", *rest[1:])
    return test(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
