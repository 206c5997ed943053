"""The fuzz harnesses in CI: every seed replayed, then each harness fuzzed for a short, fixed time.

Every ``tests/fuzz/fuzz_NAME.py`` is picked up.  The replay runs in this
process; fuzzing runs ``run.py NAME --seconds S`` in a subprocess (atheris
must own the process), ``$WIREPLAN_FUZZ_SECONDS`` each (default 15), and
fails on any finding, with the reproducer's path and the harness's output.
The DSDL types are compiled once for both (``$WIREPLAN_FUZZ_DSDL_CACHE``).
Longer runs: ``python3 dev.py fuzz [NAME...] --seconds N``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import wireplan

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run

NAMES = run.harness_names()
SECONDS = int(os.environ.get("WIREPLAN_FUZZ_SECONDS", "15"))
# What one harness may take on top of its fuzzing time: imports and setup()
# (compiling every DSDL type), on a shared, busy CI machine.
SETUP_ALLOWANCE = 240


@pytest.fixture(scope="module", autouse=True)
def _shared_dsdl_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIREPLAN_FUZZ_DSDL_CACHE", str(tmp_path_factory.mktemp("dsdl-cache")))
        yield


def test_every_harness_has_seeds() -> None:
    assert NAMES, "no tests/fuzz/fuzz_*.py"
    for name in NAMES:
        seeds = list(run.seed_files(run.CORPUS / name))
        assert seeds, f"no seeds in {run.CORPUS / name}"
        size = sum(p.stat().st_size for p in seeds)
        assert size < 100_000, f"the seed corpus of {name} is {size} bytes"


@pytest.mark.parametrize("name", NAMES)
def test_seeds_replay(name: str) -> None:
    target = run.prepared(name)
    for path in run.seed_files(run.CORPUS / name):
        try:
            target(path.read_bytes())
        except BaseException as exc:
            raise AssertionError(f"seed {path} fails") from exc


@pytest.mark.skipif(sys.platform == "win32", reason="atheris has no Windows build")
@pytest.mark.parametrize("name", NAMES)
def test_fuzz_briefly(name: str, tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    findings = tmp_path / "findings"
    cmd = [sys.executable, str(Path(run.__file__).resolve()), name]
    cmd += ["--seconds", str(SECONDS), "--findings", str(findings)]
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=SECONDS + SETUP_ALLOWANCE, check=False
    )
    report = done.stdout + done.stderr[-8000:]
    assert done.returncode == 0, f"fuzzing {name} found a problem:\n{report}"
    assert f"{name}: " in done.stdout and "0 finding(s)" in done.stdout, report


@pytest.mark.skipif(sys.platform == "win32", reason="atheris has no Windows build")
def test_runner_reports_a_finding_with_its_reproducer(tmp_path: Path) -> None:
    """run.py on a harness that fails on one input (no fuzzer guesses it): exit 1, input saved."""
    pytest.importorskip("atheris")
    here = tmp_path / "tests" / "fuzz"
    (here / "corpus" / "boom").mkdir(parents=True)
    runner = here / "run.py"
    runner.write_bytes(Path(run.__file__).read_bytes())
    (here / "fuzz_boom.py").write_text(
        "import hashlib\n\nimport wireplan\n\n\n"
        "def TestOneInput(data: bytes) -> None:\n"
        "    try:\n"
        "        if data[:1] == b'?':\n"
        "            raise wireplan.DecodeError('refused', 0)\n"
        "    except wireplan.WireplanError:\n"
        "        return\n"
        "    if hashlib.sha256(data).hexdigest() == hashlib.sha256(b'!boom').hexdigest():\n"
        "        raise RuntimeError('boom')\n"
    )
    (here / "corpus" / "boom" / "refused").write_bytes(b"?")
    # Only the wireplan under test on the path: the worker's sys.path may hold folders other
    # tests added (onnxruntime's ort_format_model tools have a types.py that shadows the stdlib).
    env = {**os.environ, "PYTHONPATH": str(Path(wireplan.__file__).parents[1])}
    findings = tmp_path / "findings"
    cmd = [sys.executable, str(runner), "boom", "--seconds", "2", "--findings", str(findings)]
    quiet = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    assert "0 finding(s)" in quiet.stdout
    (here / "corpus" / "boom" / "crash").write_bytes(b"!boom")
    found = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert found.returncode == 1 and "1 finding(s)" in found.stdout, found.stdout + found.stderr
    [saved] = [p for p in findings.iterdir() if p.name.startswith("crash-")]
    assert saved.read_bytes() == b"!boom" and f"--replay {saved}" in found.stdout
    assert not any(p.name != "refused" and p.name != "crash" for p in here.rglob("corpus/*/*"))
    again = subprocess.run(
        [sys.executable, str(runner), "boom", "--replay", str(saved)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert again.returncode == 1 and "RuntimeError: boom" in again.stdout + again.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="atheris has no Windows build")
def test_instrumenting_passes_over_a_dead_weak_proxy() -> None:
    """A weak proxy whose object is gone, among the collector's objects, is no function to
    instrument; asking it anything raises ReferenceError (which stopped two harnesses once)."""
    pytest.importorskip("atheris")
    import weakref

    class Gone:
        pass

    obj = Gone()
    kept = [weakref.proxy(obj)]
    del obj
    assert run._instrument(("no_such_module_prefix",)) == 0
    assert kept  # the dead proxy was among the objects looked at
