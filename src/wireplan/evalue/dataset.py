"""``EValueDataset``: record files (or a stream) as a torch ``IterableDataset``.

Sharded, shuffled per epoch, split over ``torch.distributed`` ranks and
DataLoader workers, resumable mid-epoch.  The class is defined in
:mod:`wireplan.evalue.torch`, torch's one door, on the torch-free reading of
:mod:`wireplan.evalue._dataset`; this module names it where the docs import
it from, and (like the door) needs torch.
"""

from __future__ import annotations

from wireplan.evalue.torch import STATE_VERSION, EValueDataset

__all__ = ["STATE_VERSION", "EValueDataset"]
