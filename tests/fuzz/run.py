#!/usr/bin/env python3
"""Run a fuzz harness of ``tests/fuzz`` under atheris (libFuzzer).

    python tests/fuzz/run.py NAME [--seconds S] [--corpus DIR] [--jobs N] [--findings DIR]
    python tests/fuzz/run.py NAME --replay FILE_OR_DIR ...
    python tests/fuzz/run.py NAME --write-seeds
    python tests/fuzz/run.py --list

``NAME`` is the harness ``tests/fuzz/fuzz_NAME.py``: a module with
``TestOneInput(data: bytes) -> None``, which returns normally when the input
is accepted or refused with a ``wireplan.WireplanError`` and lets anything
else propagate, and optionally ``setup() -> None`` (one-time work, run before
fuzzing starts), ``MAX_LEN`` (the longest input to try, default 4096) and
``INSTRUMENT`` (module name prefixes whose code guides the fuzzer, default
``("wireplan",)``), ``instrumented(func) -> bool`` (which of their functions
to instrument, all by default) and ``seeds()`` (name -> bytes: what
``--write-seeds`` puts in the seed corpus).

The fuzzer starts from the seeds in ``tests/fuzz/corpus/NAME/``, which it
only reads; new corpus entries go to ``--corpus DIR`` (kept) or to a
temporary folder (removed at the end).  ``--jobs N`` runs N fuzzing
processes sharing that folder.  Each finding (an exception other than a
WireplanError, a timeout, running out of memory) is saved as a reproducer in
``--findings DIR`` (default ``$XDG_CACHE_HOME/wireplan/fuzz/NAME``), with
the log; the run then prints the inputs tried and the findings, and exits 1.
``--replay`` runs the harness on files (or every file of folders) without
atheris, with the exception's traceback: the way to reproduce a finding.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CORPUS = HERE / "corpus"
FINDING_KINDS = ("crash-", "timeout-", "oom-", "leak-")
_RUNS = re.compile(r"^#(\d+)\s", re.M)
_DONE = re.compile(r"^Done (\d+) runs in (\d+) second", re.M)


def harness_names() -> list[str]:
    """Every harness: the NAME of each ``tests/fuzz/fuzz_NAME.py``."""
    return sorted(p.stem.removeprefix("fuzz_") for p in HERE.glob("fuzz_*.py"))


def load_harness(name: str) -> types.ModuleType:
    """Import ``fuzz_NAME.py`` with the checkout's ``src`` first on the path (no setup)."""
    path = HERE / f"fuzz_{name}.py"
    if not path.is_file():
        raise SystemExit(f"run.py: no harness {path} (harnesses: {', '.join(harness_names())})")
    for folder in (str(HERE), str(ROOT / "src")):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"fuzz_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def prepared(name: str) -> Callable[[bytes], None]:
    """The harness's ``TestOneInput``, after its ``setup()``."""
    module = load_harness(name)
    setup = getattr(module, "setup", None)
    if setup is not None:
        setup()
    target: Callable[[bytes], None] = module.TestOneInput
    return target


def seed_files(folder: Path) -> Iterator[Path]:
    if folder.is_file():
        yield folder
    elif folder.is_dir():
        yield from sorted(p for p in folder.rglob("*") if p.is_file())


def replay(name: str, paths: list[Path]) -> int:
    """Run the harness on each file; print a traceback for every failure."""
    target = prepared(name)
    failed = total = 0
    for path in (f for p in paths for f in seed_files(p)):
        total += 1
        try:
            target(path.read_bytes())
        except BaseException:
            failed += 1
            print(f"FAIL {path}", flush=True)
            traceback.print_exc()
    print(f"{name}: {total} inputs replayed, {failed} failed")
    return 1 if failed or not total else 0


def write_seeds(name: str) -> int:
    """Replace ``corpus/NAME`` by what the harness's ``seeds()`` returns (name -> bytes)."""
    prepared(name)
    made = sys.modules[f"fuzz_{name}"].seeds()
    folder = CORPUS / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for key, data in made.items():
        (folder / re.sub(r"[^A-Za-z0-9_.-]", "_", key)).write_bytes(data)
    size = sum(len(d) for d in made.values())
    print(f"{name}: {len(made)} seeds, {size} bytes in {folder}")
    return 0


def _instrument(
    prefixes: tuple[str, ...], keep: Callable[[types.FunctionType], bool] | None = None
) -> int:
    """Add atheris's coverage counters to the loaded functions of the given modules.

    ``keep`` (the harness's ``instrumented``) narrows them down: patching
    costs about 10 ms a function.
    """
    import atheris

    count = 0
    # type(), not isinstance(): isinstance() asks an object for its __class__, which a weak
    # proxy whose referent is gone answers with ReferenceError (it stopped both ORT harnesses
    # in one CI run) and some of torch's objects with a warning; functions have no subclasses
    functions = [obj for obj in gc.get_objects() if type(obj) is types.FunctionType]
    for obj in functions:
        module = getattr(obj, "__module__", None) or ""
        if module.startswith(prefixes) and (keep is None or keep(obj)):
            try:
                atheris.instrument_func(obj)
            except Exception:  # a function atheris cannot patch stays uninstrumented
                continue
            count += 1
    return count


def worker(name: str, seconds: int, work: Path, findings: Path, timeout: int) -> None:
    """One fuzzing process (what the parent starts): setup, instrument, fuzz until the time is up."""
    module = load_harness(name)
    setup = getattr(module, "setup", None)
    if setup is not None:
        setup()
    import atheris

    prefixes = tuple(getattr(module, "INSTRUMENT", ("wireplan",)))
    count = _instrument(prefixes, getattr(module, "instrumented", None))
    print(f"INFO: instrumented {count} functions of {prefixes}", file=sys.stderr)
    seeds = CORPUS / name
    args = [
        sys.argv[0],
        f"-max_total_time={seconds}",
        f"-timeout={timeout}",
        "-rss_limit_mb=4096",
        f"-max_len={getattr(module, 'MAX_LEN', 4096)}",
        f"-artifact_prefix={findings}{os.sep}",
        "-print_final_stats=1",
        str(work),
    ]
    if seeds.is_dir():
        args.append(str(seeds))
    atheris.Setup(args, module.TestOneInput)
    atheris.Fuzz()


def _default_findings(name: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wireplan" / "fuzz" / name


def fuzz(
    name: str, seconds: int, corpus: Path | None, jobs: int, findings: Path, timeout: int
) -> int:
    load_harness(name)  # fail early on a missing or broken harness
    findings.mkdir(parents=True, exist_ok=True)
    before = {p.name for p in findings.iterdir()}
    work = corpus if corpus is not None else Path(tempfile.mkdtemp(prefix=f"wireplan-fuzz-{name}-"))
    work.mkdir(parents=True, exist_ok=True)
    logs = Path(tempfile.mkdtemp(prefix=f"wireplan-fuzz-{name}-logs-"))
    # The workers' temporary files (a harness's folders): libFuzzer ends the process
    # without running atexit handlers, so the folder is removed here.
    scratch = logs / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    started = time.monotonic()
    try:
        for j in range(jobs):
            log = logs / f"worker-{j}.log"
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name]
            cmd += ["--seconds", str(seconds), "--corpus", str(work), "--findings", str(findings)]
            cmd += ["--timeout", str(timeout)]
            with log.open("wb") as out:
                proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
                procs.append((proc, log))
        codes = [p.wait() for p, _ in procs]
        runs = 0
        for (_, log), code in zip(procs, codes, strict=True):
            text = log.read_text(errors="replace")
            done = _DONE.search(text)
            counts = _RUNS.findall(text)
            runs += int(done.group(1)) if done else int(counts[-1]) if counts else 0
            if code and not done:
                kept = findings / f"{time.strftime('%Y%m%d-%H%M%S')}-{log.name}"
                shutil.copyfile(log, kept)
                print(text[-6000:], file=sys.stderr)
                print(f"{name}: a worker exited with {code}; its log: {kept}", file=sys.stderr)
        new = sorted(
            p
            for p in findings.iterdir()
            if p.name not in before and p.name.startswith(FINDING_KINDS)
        )
        slow = [p for p in findings.iterdir() if p.name not in before and "slow-unit-" in p.name]
        entries = sum(1 for p in work.iterdir() if p.is_file())
        elapsed = time.monotonic() - started
        print(
            f"{name}: {runs} inputs in {elapsed:.0f} s ({jobs} job(s), {seconds} s fuzzing each), "
            f"corpus {entries} entries in {work}, {len(new)} finding(s)"
        )
        if slow:  # libFuzzer's note of an input slower than 10 s so far; not a finding
            print(f"  {len(slow)} slow unit(s), kept in {findings}")
        for p in new:
            print(
                f"  finding {p}\n    reproduce: python {Path(__file__).resolve()} {name} --replay {p}"
            )
        return 1 if new or any(codes) else 0
    finally:
        for p, _ in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(logs, ignore_errors=True)
        if corpus is None:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        description="Run a fuzz harness under atheris.", usage="%(prog)s NAME [options]"
    )
    ap.add_argument("name", nargs="?", help=f"harness: one of {', '.join(harness_names())}")
    ap.add_argument("--seconds", type=int, default=60, help="fuzzing time per job (default 60)")
    ap.add_argument("--corpus", type=Path, help="keep new corpus entries in DIR (default: temp)")
    ap.add_argument("--jobs", type=int, default=1, help="fuzzing processes (default 1)")
    ap.add_argument("--findings", type=Path, help="where reproducers go")
    ap.add_argument("--timeout", type=int, default=10, help="seconds one input may take")
    ap.add_argument("--replay", type=Path, nargs="+", metavar="PATH", help="run these inputs")
    ap.add_argument("--list", action="store_true", help="list the harnesses")
    ap.add_argument(
        "--write-seeds",
        action="store_true",
        help="replace the seed corpus by the harness's seeds()",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.list:
        print("\n".join(harness_names()))
        return 0
    if not ns.name:
        ap.error("name a harness")
    if ns.replay:
        return replay(ns.name, ns.replay)
    if ns.write_seeds:
        return write_seeds(ns.name)
    findings = ns.findings or _default_findings(ns.name)
    if ns.worker:
        worker(ns.name, ns.seconds, ns.corpus, findings, ns.timeout)
        return 0
    if ns.jobs < 1 or ns.seconds < 1:
        ap.error("--jobs and --seconds must be at least 1")
    return fuzz(ns.name, ns.seconds, ns.corpus, ns.jobs, findings, ns.timeout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
