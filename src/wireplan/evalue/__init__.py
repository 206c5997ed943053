"""ExecuTorch's ``EValue`` wire format, byte-compatible with its Java layer.

One value::

    data = encode(np.arange(6, dtype=np.float32).reshape(2, 3))
    arr = decode(data)                 # native-endian, writable copy
    view = decode(data, copy=False)    # read-only big-endian view, no copy

Sequences (training examples) use wireplan's versioned list framing, and
record files hold many of them::

    blob = encode_list([arr, "label", 3])
    with RecordWriter("train.evr") as w:
        w.write([arr, "label", 3])
    for values in read_records("train.evr"):
        ...

``wireplan.evalue.torch`` (needs torch) adds ``EValueDataset``.  The layout,
limits and differences from the Java implementation are in ``docs/evalue.md``.
"""

from wireplan.evalue._bundled import (
    BundledProgram,
    BundledTestCase,
    bundled_to_records,
    decode_bundled,
    encode_bundled,
    read_bundled,
    records_to_bundled,
    write_bundled,
)
from wireplan.evalue._codec import (
    MAX_RANK,
    MAX_SIZE,
    NUMPY_MAX_RANK,
    EValue,
    RawTensor,
    decode,
    encode,
    encode_into,
    encoded_size,
)
from wireplan.evalue._dtypes import (
    JAVA_SCALAR_TYPES,
    SCALAR_TYPES,
    ScalarTypeInfo,
    info_for_code,
    info_for_dtype,
)
from wireplan.evalue._lists import (
    ALIGNMENT,
    LIST_MAGIC,
    LIST_VERSION,
    decode_list,
    encode_list,
    plan_list,
)
from wireplan.evalue._program import program_values
from wireplan.evalue._records import (
    RECORD_MAGIC,
    RECORD_VERSION,
    RecordFile,
    read_records,
    record_count,
    shard_paths,
)
from wireplan.evalue._writer import RecordWriter

__all__ = [
    "ALIGNMENT",
    "JAVA_SCALAR_TYPES",
    "LIST_MAGIC",
    "LIST_VERSION",
    "MAX_RANK",
    "MAX_SIZE",
    "NUMPY_MAX_RANK",
    "RECORD_MAGIC",
    "RECORD_VERSION",
    "SCALAR_TYPES",
    "BundledProgram",
    "BundledTestCase",
    "EValue",
    "RawTensor",
    "RecordFile",
    "RecordWriter",
    "ScalarTypeInfo",
    "bundled_to_records",
    "decode",
    "decode_bundled",
    "decode_list",
    "encode",
    "encode_bundled",
    "encode_into",
    "encode_list",
    "encoded_size",
    "info_for_code",
    "info_for_dtype",
    "plan_list",
    "program_values",
    "read_bundled",
    "read_records",
    "record_count",
    "records_to_bundled",
    "shard_paths",
    "write_bundled",
]
