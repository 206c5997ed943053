"""Fixtures for the EValue tests."""

from __future__ import annotations

import pytest
from evalue_support import load_golden


@pytest.fixture(scope="session")
def golden() -> list[tuple[str, bytes]]:
    return load_golden()
