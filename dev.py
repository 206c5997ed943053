#!/usr/bin/env python3
"""Set up a development environment and run wireplan's main jobs.

    python3 dev.py demo             the built-in example through every format, in .venv/
                                    when it is set up, else in a lighter .venv-demo/ (wireplan
                                    with its runtime extras only); then prints where the
                                    `wireplan` command is
    python3 dev.py wheel            build dist/wireplan-VERSION-py3-none-any.whl, check that it
                                    holds the package data and no tests, print its path
    python3 dev.py test             ruff, mypy --strict and pytest, then the ORT suites
                                    under the older onnxruntime releases and the numpy ones
                                    under numpy 1.26, then the wheel installed into clean
                                    environments (what CI runs)
    python3 dev.py test ARGS        ruff, mypy and pytest ARGS in the main environment only
    python3 dev.py test-env NAME [ARGS]
                                    pytest in one of the older-release environments
                                    (NAME: ort-1.15, ort-1.20, numpy-1; ARGS default to its
                                    suites),
                                    or (NAME: wheel) the wheel step of `test` alone, or
                                    (NAME: executorch) the ExecuTorch training tests
    python3 dev.py bench NAME       run benchmarks/bench_NAME.py (installs matplotlib)
    python3 dev.py fuzz [NAME...] [--seconds N] [--jobs J]
                                    run the fuzz harnesses tests/fuzz/fuzz_NAME.py (all by
                                    default) one after another, N seconds each (default 600),
                                    under atheris; reproducers of findings are kept
                                    (docs/development.md)
    python3 dev.py setup            only create/refresh the environments

Needs nothing but python3 (3.11+). The main environment is `.venv/` next to
this file (or $WIREPLAN_VENV) with the newest pinned peers
(constraints/dev.txt); `.venv-ort-1.15/` and `.venv-ort-1.20/` hold the
older onnxruntime releases wireplan supports (constraints/ort-*.txt), and
`.venv-numpy-1/` numpy 1.26 under the core, EValue and DSDL's Python side
(constraints/numpy-1.txt). Each is
created on first use and refreshed when pyproject.toml, its constraints file or
this file change. `.venv-nunavut-3.1/` holds nunavut 3.1, whose C output the
DSDL C backend is tested and measured against. `.venv-executorch/` holds
executorch 1.5.1 with torch (constraints/executorch.txt) for the tests of training in
ExecuTorch on EValue records, which the main run leaves out. The DSDL C tests also run on
real targets (s390x and powerpc, big-endian; armhf; aarch64) through Debian's
cross compilers and qemu user mode, and build for Cortex-M (arm-none-eabi-gcc);
`setup` and `test` install these with apt-get when run as root (else they print
the packages). `.venv-demo/` (`demo` without a
main environment) holds `-e .[all]`: no torch, no test tools. The wheel step
installs the built wheel into `.venv-wheel-bare/` (no extras: the demo must skip
the parts it cannot run, in one line each) and `.venv-wheel-all/` (`[all]`: every
part runs), and runs `wireplan demo` from each.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("WIREPLAN_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"

# torch is optional for users and in no extra but its own; the test suite covers
# wireplan.evalue.torch, so the development environment has it. The pin is the CPU build that
# lies on the development machines: a looser spec would make pip fetch a CUDA build.
TORCH = "torch==2.13.0"
DIST = ROOT / "dist"


class Env:
    """A virtual environment: what it installs, with which pins, and which tests it runs."""

    def __init__(
        self, name: str, path: Path, install: list[str], constraints: str, tests: list[str]
    ) -> None:
        self.name = name
        self.path = path
        self.bin = path / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bin / "python"
        self.install = install
        self.constraints = ROOT / "constraints" / constraints
        self.tests = tests
        self.stamp = path / ".wireplan-setup"


MAIN = Env("main", VENV, ["-e", ".[test]", TORCH], "dev.txt", [])

# The ORT suites against the older onnxruntime releases the extras admit: the oldest end of
# the range (1.15.1, format 5) and 1.20.1 (format 6). torch is not installed there.
_ORT_SUITES = ["tests/ort", "tests/ort_write", "--ignore=tests/ort/test_torch_transformer.py"]
OLD = {
    name: Env(name, ROOT / f".venv-{name}", ["-e", ".[test-ort]"], f"{name}.txt", _ORT_SUITES)
    for name in ("ort-1.15", "ort-1.20")
}

# numpy 1.26, the oldest end of the core's range, under what runs on numpy without
# onnxruntime: the core, flatbuffers, EValue (with torch, and fsspec at its oldest end), and
# DSDL's Python side (pycyphal 1.20, the newest on numpy 1.x, as the oracle).  ExecuTorch and
# the C/C++ tests stay in their environments (the C/C++ tests run no numpy code).
_NUMPY1_SUITES = [
    "tests/core",
    "tests/flatbuffers",
    "tests/evalue",
    "tests/dsdl",
    *(
        f"--ignore=tests/{name}.py"
        for name in (
            "evalue/test_executorch_bundled",
            "evalue/test_executorch_training",
            "dsdl/test_bench_dsdl_c",
            "dsdl/test_dsdl_c",
            "dsdl/test_dsdl_c_emit",
            "dsdl/test_dsdl_c_mcu",
            "dsdl/test_dsdl_cpp",
            "dsdl/test_dsdl_nunavut_cpp_suite",
            "dsdl/test_dsdl_nunavut_suite",
        )
    ),
]
OLD["numpy-1"] = Env(
    "numpy-1",
    ROOT / ".venv-numpy-1",
    [
        "-e",
        ".[dsdl,dtypes,progress,fsspec]",
        TORCH,
        "flatbuffers",
        "pycyphal",
        "pytest",
        "pytest-xdist",
        "hypothesis",
    ],
    "numpy-1.txt",
    _NUMPY1_SUITES,
)

# nunavut 3.1, the peer of the DSDL C backend: its `nnvg` writes the C headers our own are
# compared with. pycyphal pins nunavut 2.x, so it lives in its own environment, which the
# tests find through $WIREPLAN_NNVG.
NUNAVUT = Env("nunavut-3.1", ROOT / ".venv-nunavut-3.1", ["nunavut"], "nunavut-3.1.txt", [])

# ExecuTorch, whose training runtime is the peer of tests/evalue/test_executorch_training.py
# (records -> EValueDataset -> SGD steps in ExecuTorch): its own environment, as the main one
# does not carry its dependencies (coremltools, torchao, ...); the main run leaves the file out.
# tests/evalue/test_executorch_bundled.py: its bundled programs against ours, both ways.
EXECUTORCH_TESTS = [
    "tests/evalue/test_executorch_training.py",
    "tests/evalue/test_executorch_bundled.py",
]
EXECUTORCH = Env(
    "executorch",
    ROOT / ".venv-executorch",
    ["-e", ".", TORCH, "executorch", "pytest", "hypothesis"],
    "executorch.txt",
    EXECUTORCH_TESTS,
)

# What `dev.py demo` needs when there is no main environment: the runtime extras, no torch,
# no test tools (a fraction of .venv's size).
DEMO = Env("demo", ROOT / ".venv-demo", ["-e", ".[all]"], "dev.txt", [])

# Files the wheel must carry: the package, and the data wireplan reads at run time through
# __file__ or importlib.resources.
PACKAGE_DATA = (
    "wireplan/__init__.py",
    "wireplan/dsdl/compiler/c/wireplan_dsdl_support.h",
    "wireplan/dsdl/compiler/c/nunavut_serialization.h",
    "wireplan/dsdl/example/demo/Command.1.0.dsdl",
    "wireplan/dsdl/example/demo/Configure.1.0.dsdl",
    "wireplan/dsdl/example/demo/Status.1.0.dsdl",
    "wireplan/dsdl/example/demo/Telemetry.1.0.dsdl",
    "wireplan/evalue/cpp/wireplan_evalue.hpp",
    "wireplan/evalue/cpp/wireplan_evalue_executorch.hpp",
)


def _say(msg: str) -> None:
    print(f"[dev.py] {msg}", flush=True)


def _run(*cmd: str | Path) -> int:
    return subprocess.call([str(c) for c in cmd], cwd=ROOT)


def _fingerprint(env: Env) -> str:
    h = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", ROOT / "dev.py", env.constraints):
        h.update(path.read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()


def setup(env: Env = MAIN) -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this file runs on any python3
        sys.exit("wireplan needs Python 3.11 or newer")
    if not env.python.exists():
        _say(f"creating {env.path}")
        venv.EnvBuilder(with_pip=True, clear=env.path.exists()).create(env.path)
    want = _fingerprint(env)
    if env.stamp.exists() and env.stamp.read_text() == want:
        return
    log = env.path / "setup.log"
    what = {
        MAIN: "wireplan and its test peers",
        DEMO: "wireplan with its runtime extras",
    }.get(env, f"the {env.name} environment")
    _say(f"installing {what} (a few minutes the first time; log: {log})")
    pip = [str(env.python), "-m", "pip", "--disable-pip-version-check"]
    steps = [
        ["install", "--upgrade", "pip"],
        ["install", "-c", str(env.constraints), *env.install],
    ]
    with log.open("w") as out:
        for args in steps:
            code = subprocess.call(pip + args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
            if code:
                sys.stdout.write(log.read_text()[-5000:])
                _say(f"pip {' '.join(args)} failed ({code}); the whole log is in {log}")
                sys.exit(code)
    env.stamp.write_text(want)


# The real targets of the DSDL C and C++ tests (TARGETS of tests/dsdl/test_dsdl_c.py, and
# Cortex-M in test_dsdl_c_mcu.py): Debian's cross compilers (C and C++) and qemu user mode, and
# clang++ beside g++ for the C++ headers; command -> its packages.
CROSS_TOOLS = {
    "s390x-linux-gnu-gcc": ["gcc-s390x-linux-gnu", "libc6-dev-s390x-cross"],
    "powerpc-linux-gnu-gcc": ["gcc-powerpc-linux-gnu", "libc6-dev-powerpc-cross"],
    "arm-linux-gnueabihf-gcc": ["gcc-arm-linux-gnueabihf", "libc6-dev-armhf-cross"],
    "aarch64-linux-gnu-gcc": ["gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"],
    "s390x-linux-gnu-g++": ["g++-s390x-linux-gnu"],
    "powerpc-linux-gnu-g++": ["g++-powerpc-linux-gnu"],
    "arm-linux-gnueabihf-g++": ["g++-arm-linux-gnueabihf"],
    "aarch64-linux-gnu-g++": ["g++-aarch64-linux-gnu"],
    "clang++": ["clang", "libclang-rt-14-dev"],  # the sanitizers' runtime
    "/usr/include/gmock": ["libgtest-dev", "libgmock-dev"],  # nunavut's C++ verification suite
    "qemu-s390x-static": ["qemu-user-static"],
    "arm-none-eabi-gcc": ["gcc-arm-none-eabi", "libnewlib-arm-none-eabi", "binutils-arm-none-eabi"],
    "/usr/lib/arm-none-eabi/include/c++": ["libstdc++-arm-none-eabi-newlib"],  # C++ on Cortex-M
}


def cross_tools() -> bool:
    """Install the missing cross tools with apt-get where this runs as root on Debian;
    elsewhere say which packages to install.  True when every tool is there."""
    import shutil

    def present(tool: str) -> bool:  # a command, or a folder a package installs
        return Path(tool).is_dir() if tool.startswith("/") else shutil.which(tool) is not None

    missing = sorted({p for tool, pkgs in CROSS_TOOLS.items() if not present(tool)
                      for p in pkgs})  # fmt: skip
    if not missing:
        return True
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        _say("the cross-target tests need Debian's " + " ".join(missing) + " (apt-get install)")
        return False
    _say("installing the cross compilers and qemu-user: " + " ".join(missing))
    install = [apt, "install", "-y", "-q", "--no-install-recommends", *missing]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.call(install, stdout=subprocess.DEVNULL, env=env):
        subprocess.call([apt, "update", "-q"], stdout=subprocess.DEVNULL, env=env)
        if subprocess.call(install, env=env):
            _say("apt-get install failed: " + " ".join(missing))
            return False
    return all(present(tool) for tool in CROSS_TOOLS)


def _old_env_tests(env: Env, args: list[str]) -> int:
    setup(env)
    probe = (
        "from importlib.metadata import version, PackageNotFoundError\n"
        "for name in ('onnxruntime', 'onnx', 'numpy', 'pydsdl', 'pycyphal', 'fsspec', 'torch'):\n"
        "    try: print(name, version(name))\n"
        "    except PackageNotFoundError: pass"
    )
    versions = subprocess.run(
        [env.python, "-c", probe], capture_output=True, text=True, cwd=ROOT
    ).stdout.splitlines()
    if versions:
        _say(f"{env.name}: {', '.join(versions)}")
    return _run(
        env.python, "-m", "pytest", "-n", "auto", "--dist", "loadfile", *(args or env.tests)
    )


def _executorch_tests(args: list[str]) -> int:
    setup(EXECUTORCH)
    probe = "from importlib.metadata import version as v; print(v('torch'), v('executorch'))"
    done = subprocess.run([EXECUTORCH.python, "-c", probe], capture_output=True, text=True)
    versions = done.stdout.split()
    if len(versions) == 2:
        _say(f"executorch: torch {versions[0]}, executorch {versions[1]}")
    return _run(EXECUTORCH.python, "-m", "pytest", *(args or EXECUTORCH.tests))


def _pip_python() -> Path:
    """A python with pip to build the wheel: this one, else a `.venv-build/` with pip only."""
    if importlib.util.find_spec("pip") is not None:
        return Path(sys.executable)
    path = ROOT / ".venv-build"
    python = path / ("Scripts" if os.name == "nt" else "bin") / "python"
    if not python.exists():
        _say(f"creating {path} (pip only, to build the wheel)")
        venv.EnvBuilder(with_pip=True, clear=path.exists()).create(path)
    return python


def wheel_problems(path: Path) -> list[str]:
    """What is wrong with the wheel at ``path``: package data missing, tests inside."""
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
    problems = [f"{name} is missing" for name in PACKAGE_DATA if name not in names]
    problems += sorted(
        f"{name} is a test" for name in names if name.split("/")[0] in ("tests", "test")
    )
    return problems


def wheel(out: Path = DIST) -> Path:
    """Build the wheel of this checkout into ``out`` (pip, hatchling); its path.

    Exits when pip fails or the wheel lacks package data (:func:`wheel_problems`).
    """
    out.mkdir(parents=True, exist_ok=True)
    version = next(
        line.split('"')[1]
        for line in (ROOT / "pyproject.toml").read_text().splitlines()
        if line.startswith("version = ")
    )
    path = out / f"wireplan-{version}-py3-none-any.whl"
    path.unlink(missing_ok=True)
    pip: list[str | Path] = [_pip_python(), "-m", "pip", "--disable-pip-version-check"]
    with tempfile.TemporaryFile("w+") as log:
        code = subprocess.call(
            [*pip, "wheel", "--no-deps", "-w", out, ROOT],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        if code or not path.exists():
            log.seek(0)
            sys.stdout.write(log.read()[-5000:])
            sys.exit(f"[dev.py] pip wheel failed ({code}); no {path}")
    problems = wheel_problems(path)
    if problems:
        sys.exit(f"[dev.py] {path}: " + "; ".join(problems))
    return path


# The wheel installed as a user installs it, into environments of its own: no extras (the
# demo runs what it can and says what it skipped) and [all] (every part runs).
WHEEL_ENVS = {"bare": "", "all": "[all]"}


def _wheel_env(name: str, extras: str, whl: Path) -> Env:
    """`.venv-wheel-NAME` with ``whl`` (and ``extras``) installed, as pip installs a user's.

    Created anew when pyproject.toml, dev.py or the constraints changed; otherwise the wheel
    alone is reinstalled (--force-reinstall --no-deps), so the environment runs this code.
    """
    env = Env(f"wheel-{name}", ROOT / f".venv-wheel-{name}", [], "dev.txt", [])
    want = _fingerprint(env)
    pip: list[str | Path] = [env.python, "-m", "pip", "--disable-pip-version-check", "install"]
    if env.stamp.exists() and env.stamp.read_text() == want and env.python.exists():
        cmd = [*pip, "-q", "--force-reinstall", "--no-deps", whl]
    else:
        _say(f"creating {env.path} (wireplan{extras} from the wheel)")
        env.stamp.unlink(missing_ok=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(env.path)
        cmd = [*pip, "-q", "-c", env.constraints, f"{whl}{extras}"]
    if _run(*cmd):
        sys.exit(f"[dev.py] pip install {whl.name}{extras} into {env.path} failed")
    env.stamp.write_text(want)
    return env


def wheel_check() -> bool:
    """Build the wheel, install it into clean environments, run `wireplan demo` from each."""
    try:
        whl = wheel()
        _say(f"built {whl}")
        envs = [(_wheel_env(name, extras, whl), extras) for name, extras in WHEEL_ENVS.items()]
    except SystemExit as exc:  # pip failed, or the wheel lacks a file: said why
        _say(str(exc.code))
        return False
    ok = True
    for env, extras in envs:
        _say(f"{env.bin / 'wireplan'} demo  (wireplan{extras} from the wheel)")
        with tempfile.TemporaryDirectory() as away:  # not the checkout: nothing of it on the path
            done = subprocess.run(
                [env.bin / "wireplan", "demo"], cwd=away, capture_output=True, text=True
            )
        sys.stdout.write(done.stdout + done.stderr)
        skips = [line for line in done.stdout.splitlines() if "skipped" in line]
        if done.returncode:
            problem = f"exit status {done.returncode}"
        elif extras and skips:
            problem = f"parts skipped with wireplan{extras}"
        elif not extras and not all('pip install "wireplan[' in line for line in skips):
            problem = "a skipped part does not name its extra"
        elif not extras and not skips:
            problem = "nothing skipped without the extras"
        else:
            continue
        _say(f"wheel: wireplan{extras}: {problem}")
        ok = False
    return ok


def test(args: list[str]) -> int:
    not_here = [f"--ignore={t}" for t in EXECUTORCH_TESTS]  # run in .venv-executorch
    steps: list[tuple[str, list[str | Path]]] = [
        ("ruff check", [BIN / "ruff", "check", "src", "tests", "benchmarks", "examples", "dev.py"]),
        (
            "ruff format",
            [BIN / "ruff", "format", "--check", "src", "tests", "benchmarks", "examples", "dev.py"],
        ),
        ("mypy --strict", [BIN / "mypy", "--strict"]),
        ("pytest", [BIN / "pytest", "-n", "auto", "--dist", "loadfile", *not_here, *args]),
    ]
    setup(NUNAVUT)
    os.environ.setdefault("WIREPLAN_NNVG", str(NUNAVUT.bin / "nnvg"))
    cross_tools()  # without them the cross-target tests skip (and fail under CI=true)
    failed = []
    for name, cmd in steps:
        _say(name)
        if _run(*cmd):
            failed.append(name)
    if not args:  # the whole check: the ORT suites under the older releases too
        for env in OLD.values():
            _say(f"pytest under {env.name}")
            if _old_env_tests(env, []):
                failed.append(f"pytest under {env.name}")
        _say("pytest under executorch")
        if _executorch_tests([]):
            failed.append("pytest under executorch")
        _say("wheel: build it, install it into clean environments, run the demo from each")
        if not wheel_check():
            failed.append("wheel")
    if failed:
        _say("FAILED: " + ", ".join(failed))
        return 1
    _say("all checks passed")
    return 0


def fuzz(args: list[str]) -> int:
    """Each named harness (all by default) in turn, through tests/fuzz/run.py."""
    import argparse

    runner = ROOT / "tests" / "fuzz" / "run.py"
    known = sorted(p.stem.removeprefix("fuzz_") for p in runner.parent.glob("fuzz_*.py"))
    ap = argparse.ArgumentParser(prog="dev.py fuzz")
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"of {', '.join(known)}")
    ap.add_argument("--seconds", type=int, default=600, help="per harness (default 600)")
    ap.add_argument("--jobs", type=int, default=1, help="processes per harness")
    ns = ap.parse_args(args)
    unknown = sorted(set(ns.names) - set(known))
    if unknown:
        ap.error(f"no harness {', '.join(unknown)} (harnesses: {', '.join(known)})")
    failed = []
    for name in ns.names or known:
        options = ["--seconds", str(ns.seconds), "--jobs", str(ns.jobs)]
        _say(f"fuzz {name} {' '.join(options)}")
        if _run(PY, runner, name, *options):
            failed.append(name)
    if failed:
        _say("findings (or errors) in: " + ", ".join(failed))
        return 1
    return 0


def demo(args: list[str]) -> int:
    """`wireplan demo` from .venv when it is set up, else from the lighter .venv-demo."""
    env = MAIN if MAIN.python.exists() else DEMO
    setup(env)
    code = _run(env.bin / "wireplan", "demo", *args)
    here = Path.cwd()
    folder = env.path.relative_to(here) if env.path.is_relative_to(here) else env.path
    activate = folder / env.bin.name / ("activate.bat" if os.name == "nt" else "activate")
    _say(f"the wireplan command is {env.bin / 'wireplan'}")
    _say(f"to have it on your PATH: {'' if os.name == 'nt' else 'source '}{activate}")
    return code


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in ("setup", "demo", "wheel", "test", "test-env", "bench", "fuzz"):
        print(f"dev.py: unknown command {command!r}\n{__doc__}", file=sys.stderr)
        return 2
    if command == "test-env":
        if rest == ["wheel"]:
            return 0 if wheel_check() else 1
        if rest[:1] == ["executorch"]:
            return _executorch_tests(rest[1:])
        if not rest or rest[0] not in OLD:
            print(
                f"dev.py test-env: name one of {', '.join(OLD)}, wheel, executorch", file=sys.stderr
            )
            return 2
        return _old_env_tests(OLD[rest[0]], rest[1:])
    if command == "demo":
        return demo(rest)
    if command == "wheel":
        print(wheel())
        return 0
    setup()
    if command == "setup":
        for env in (*OLD.values(), NUNAVUT, EXECUTORCH):
            setup(env)
        return 0 if cross_tools() else 1
    if command == "fuzz":
        return fuzz(rest)
    if command == "bench":
        if not rest:
            names = sorted(
                p.stem.removeprefix("bench_") for p in (ROOT / "benchmarks").glob("bench_*.py")
            )
            print("benchmarks: " + ", ".join(names))
            return 2
        probe: list[str | Path] = [
            PY,
            "-c",
            "import matplotlib",
        ]  # the figures' one dependency, on demand
        if subprocess.call(probe, cwd=ROOT, stderr=subprocess.DEVNULL):
            _say("installing matplotlib for the benchmark figures")
            pip: list[str | Path] = [PY, "-m", "pip", "--disable-pip-version-check", "install"]
            if _run(*pip, "-q", "-c", MAIN.constraints, "-e", ".[bench]"):
                return 1
        if rest[0] in ("dsdl_c", "dsdl_c_size"):  # measured against nunavut 3.1's C output
            setup(NUNAVUT)
            os.environ.setdefault("WIREPLAN_NNVG", str(NUNAVUT.bin / "nnvg"))
        return _run(PY, ROOT / "benchmarks" / f"bench_{rest[0]}.py", *rest[1:])
    return test(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
