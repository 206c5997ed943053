from __future__ import annotations

import pickle

import wireplan
from wireplan import DecodeError, EncodeError, LimitError, WireplanError


def test_hierarchy() -> None:
    assert issubclass(DecodeError, WireplanError)
    assert issubclass(EncodeError, WireplanError)
    assert issubclass(LimitError, DecodeError)
    assert issubclass(DecodeError, ValueError)
    assert wireplan.errors.DecodeError is DecodeError


def test_decode_error_message_and_path() -> None:
    err = DecodeError("8 more bytes needed for Int", 17)
    assert err.offset == 17
    assert str(err) == "at byte 17: 8 more bytes needed for Int"
    err.under("[3]").under(".items")
    assert err.path == "$.items[3]"
    assert str(err) == "at byte 17 ($.items[3]): 8 more bytes needed for Int"
    again = pickle.loads(pickle.dumps(err))
    assert (again.offset, again.path, str(again)) == (17, "$.items[3]", str(err))


def test_encode_error() -> None:
    err = EncodeError("integer out of int64 range", "$[2]")
    assert str(err) == "$[2]: integer out of int64 range"
    assert str(EncodeError("bad")) == "bad"
    assert pickle.loads(pickle.dumps(err)).path == "$[2]"
