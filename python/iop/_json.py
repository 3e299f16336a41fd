"""JSON text as `json.dumps` and `json.loads` write and read it, for frames and message bodies.

json.dumps and json.loads cost more in their Python set-up (a new JSONEncoder per call, the
encoding detection, two whitespace regexes) than in the C code doing the work on a small frame or
message: these call the C encoder and scanner, built once.
"""
import json
from json.encoder import JSONEncoder, c_make_encoder, encode_basestring, encode_basestring_ascii


def compact_json_encoder(ensure_ascii, allow_nan):
    """`json.dumps(value, ensure_ascii=..., allow_nan=..., separators=(',', ':'))`, same text, same errors."""
    checking = JSONEncoder(ensure_ascii=ensure_ascii, allow_nan=allow_nan, separators=(',', ':'))
    if c_make_encoder is None:  # an interpreter without the _json accelerator
        return checking.encode
    string = encode_basestring_ascii if ensure_ascii else encode_basestring
    # Without the circular-reference check, whose bookkeeping one encoder cannot share between
    # threads: a cycle then ends in RecursionError, and the checking encoder says what it is.
    unchecked = c_make_encoder(None, checking.default, string, None, ':', ',', False, False, allow_nan)

    def encode(value):
        try:
            return ''.join(unchecked(value, 0))
        except RecursionError:
            return checking.encode(value)

    return encode


_decoder = json.JSONDecoder()
_scan = _decoder.scan_once


def loads(text):
    """`json.loads(text)`: the same value, the same errors (except that a str starting with a
    byte-order mark fails as "Expecting value" where json.loads names the BOM)."""
    if type(text) is not str:
        return json.loads(text)
    try:
        value, end = _scan(text, 0)
    except StopIteration:  # leading whitespace or no value: the full decoder skips it or says why
        return _decoder.decode(text)
    if end != len(text):
        return _decoder.decode(text)  # trailing whitespace, or extra data it reports
    return value
