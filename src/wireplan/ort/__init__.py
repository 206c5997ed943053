"""ONNX Runtime ``.ort`` models: verified zero-copy reading and lossless conversion to ONNX.

- :func:`load` reads an .ort file (memory-mapped) or buffer into an
  :class:`OrtModel` whose weights are numpy views into the file;
- :func:`to_onnx` / :func:`from_onnx` convert between :class:`OrtModel` and
  ``onnx.ModelProto`` (need ``onnx``, imported only when called);
- :func:`save` / :func:`to_bytes` write an .ort with the planned, aligned
  writer (:mod:`wireplan.ort.writer`);
- :func:`convert` converts files by suffix: ``.ort -> .onnx`` here,
  ``.onnx -> .ort`` through the planned writer;
- :func:`required_operators` writes the ``required_operators.config`` of a
  reduced onnxruntime build (:mod:`wireplan.ort.operators`).

``import wireplan.ort`` does not import ``onnx`` or ``onnxruntime``.
"""

from wireplan.ort._api import convert, from_onnx, to_onnx
from wireplan.ort.model import OrtModel
from wireplan.ort.operators import required_operators
from wireplan.ort.reader import load
from wireplan.ort.runtime import session
from wireplan.ort.writer import save, to_bytes

__all__ = [
    "OrtModel",
    "convert",
    "from_onnx",
    "load",
    "required_operators",
    "save",
    "session",
    "to_bytes",
    "to_onnx",
]
