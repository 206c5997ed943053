"""The installed onnxruntime release against our .ort files and against its own converter.

- Its loader accepts our file in every format version it loads, and refuses
  the others with its version message (format 5 for 1.13-1.15, 6 from 1.16).
- On a deterministic sample of the corpus (every 8th node case, every 3rd
  data model): wherever the .ort its own converter writes runs identically
  to the .onnx, ours does too, and wireplan reads its files.  The whole
  corpus: ``python tests/ort_write/releases.py`` (docs/ort.md, "Tested
  with", says what it shows).

CI runs this file under the newest release and the oldest supported one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ort_write import corpus, models, peer, releases
from ort_write.test_writer import run_onnx, run_ort
from wireplan.errors import PeerError
from wireplan.ort import load, session, writer
from wireplan.ort import onnxruntime_door as door

NODE_STEP = 8
DATA_STEP = 3


@pytest.mark.parametrize("version", writer.FORMAT_VERSIONS)
def test_the_release_loads_the_format_versions_it_supports(version: int, tmp_path: Path) -> None:
    model = models.features()  # subgraphs, sparse and string tensors, metadata, dim_param
    path = tmp_path / f"v{version}.ort"
    writer.save(model, path, format_version=version)
    with load(path) as om:
        assert om.ort_version == str(version)
    if version in door.loadable_format_versions():
        for feeds in models.feature_feeds():
            assert corpus.same(run_ort(path, feeds), run_onnx(model, feeds))
    else:
        with pytest.raises(PeerError, match=rf"version \[{version}\] is not supported"):
            session(path)


def test_peer_format_is_one_the_release_loads() -> None:
    assert peer.FORMAT_VERSION in door.loadable_format_versions()
    newest_loadable = 5 if peer.RELEASE < (1, 16) else 6
    assert newest_loadable == peer.FORMAT_VERSION


#: How many sampled cases the release's own .ort runs identically, at least: an older release
#: runs fewer cases at all (the opsets it knows: 21 for 1.20, 19 for 1.15).
THEIRS_IDENTICAL = peer.for_release(180, {(1, 20): 120, (1, 15): 110})


def test_ours_runs_identically_wherever_the_release_own_ort_does() -> None:
    cases = corpus.node_cases()[::NODE_STEP] + corpus.data_cases()[::DATA_STEP]
    results = list(releases.check_all(cases))
    print("\n" + releases.summarize(results))
    theirs = [r for r in results if r.theirs == "identical"]
    assert len(theirs) >= THEIRS_IDENTICAL
    assert [(r.name, r.ours, r.ours_detail) for r in releases.misses(results)] == []
    # Their files stay readable: load, to_onnx, and the converted model runs alike.
    saved = [r for r in results if r.theirs not in ("", "not-saved")]
    assert saved and all(r.readable == "yes" for r in saved), releases.summarize(results)
    if door.kernels_known():
        assert all(r.ours == "identical" for r in theirs)
