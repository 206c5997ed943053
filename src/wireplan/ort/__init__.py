"""ONNX Runtime ``.ort`` models: verified zero-copy reading and lossless conversion to ONNX.

- :func:`load` reads an .ort file (memory-mapped) or buffer into an
  :class:`OrtModel` whose weights are numpy views into the file;
- :func:`to_onnx` / :func:`from_onnx` convert between :class:`OrtModel` and
  ``onnx.ModelProto`` (need ``onnx``, imported only when called);
- :func:`decode` reads one from bytes in memory, :func:`encode` (also named
  :func:`to_bytes`) writes one to bytes, :func:`save` to a file, all with the
  planned, aligned writer (:mod:`wireplan.ort.writer`);
- :func:`convert` converts files by suffix: ``.ort -> .onnx`` here,
  ``.onnx -> .ort`` through the planned writer;
- :func:`required_operators` writes the ``required_operators.config`` of a
  reduced onnxruntime build (:mod:`wireplan.ort.operators`);
- :func:`session` opens an ``onnxruntime.InferenceSession`` on an .ort, its
  weights left in the file's mapping (:mod:`wireplan.ort.sessions`).

The layers, each importing only those before it: the model
(:mod:`~wireplan.ort.model`, :mod:`~wireplan.ort.graph`), reading
(:mod:`~wireplan.ort.reader`) and encoding (:mod:`~wireplan.ort.encoder`), the
passes that prepare a model for the encoder (:mod:`~wireplan.ort.prepare`), the
verbs that write (:mod:`~wireplan.ort.writer`), and sessions
(:mod:`~wireplan.ort.sessions`).  Two doors: :mod:`wireplan.ort.onnx` imports
``onnx``, :mod:`wireplan.ort.onnxruntime_door` imports ``onnxruntime``.

``import wireplan.ort`` does not import ``onnx`` or ``onnxruntime``.
"""

from wireplan.ort._api import convert, from_onnx, to_onnx
from wireplan.ort.model import OrtModel
from wireplan.ort.operators import required_operators
from wireplan.ort.reader import decode, load
from wireplan.ort.sessions import session
from wireplan.ort.writer import encode, save, to_bytes

__all__ = [
    "OrtModel",
    "convert",
    "decode",
    "encode",
    "from_onnx",
    "load",
    "required_operators",
    "save",
    "session",
    "to_bytes",
    "to_onnx",
]
