"""Test-suite wide settings."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# CI: no deadline (the machine is shared and noisy), print the failing blob.
settings.register_profile(
    "ci",
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every fd passed to ``os.fsync`` (which still runs), for tests of durable writes."""
    calls: list[int] = []
    real = os.fsync

    def spy(fd: Any) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


# In CI a skipped test is a failed one: a peer (onnxruntime, pycyphal, torch) that is
# missing there means the check did not run (missing test data, in tests/data, fails
# outright).  Only the slow corpus tests, which CI leaves out on purpose (``-m slow`` runs
# them), and skips a test marks as platform-bound (``skipif``) may skip.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if not (os.environ.get("CI") and report.skipped):
        return
    if "slow" in item.keywords or item.get_closest_marker("skipif") is not None:
        return
    _fail_skip(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """The same for a whole module skipped while collected (a module-level ``importorskip``)."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped:
        _fail_skip(report)


def _fail_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"skipped in CI, which must run every peer test: {reason}"
