"""Fixtures for the EValue tests."""

from __future__ import annotations

import pytest
from evalue_support import GOLDEN_TSV, load_golden


@pytest.fixture(scope="session")
def golden() -> list[tuple[str, bytes]]:
    if not GOLDEN_TSV.is_file():
        pytest.skip(f"golden vectors not found at {GOLDEN_TSV} (../shared/evalue beside the repo)")
    return load_golden()
