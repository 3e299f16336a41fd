"""The flat-message template: the JSON of a message whose attributes are all plain values, written
without the encoder.

A message whose attributes are all exact strs, ints, bools or None is written from a template
per attribute layout instead of through the C encoder, which costs ~2,000 instructions per member
of a small dict (an 18,000-instruction body became 10,000; docs/benchmarks.md, issue 16, fourth
session). The text is `_dumps(_attributes(value))`'s (iop/_serialization.py) to the byte: keys and
strings escaped by the encoder's own function, the same order, `_`-attributes left out. Any other
value (a float, whose range the encoder checks; a nested object; a str subclass) sends the message
the general way.
"""
from json.encoder import encode_basestring

_layouts = {}  # tuple of an instance's attribute names -> (names written, %-template), or None
_MAX_LAYOUTS = 256  # instances with ever new attribute names are not remembered past this
_UNKNOWN = object()


def flat_attributes_json(value):
    """The JSON text of `value`'s attributes from its layout's template, or None when the general way must write it."""
    state = getattr(value, '__dict__', None)
    if type(state) is not dict:
        return None  # no attributes of its own to write: the general way says what it makes of that
    keys = tuple(state)
    layout = _layouts.get(keys, _UNKNOWN)
    if layout is _UNKNOWN:
        layout = None
        if all(type(key) is str for key in keys):
            names = tuple(key for key in keys if not key.startswith('_'))
            template = '{' + ','.join(encode_basestring(name).replace('%', '%%') + ':%s' for name in names) + '}'
            layout = (names, template)
        if len(_layouts) < _MAX_LAYOUTS:
            _layouts[keys] = layout
    if layout is None:
        return None
    names, template = layout
    parts = []
    try:
        for name in names:
            item = state[name]
            kind = type(item)
            if kind is str:
                parts.append(encode_basestring(item))
            elif kind is int:
                parts.append(int.__repr__(item))
            elif item is None:
                parts.append('null')
            elif kind is bool:
                parts.append('true' if item else 'false')
            else:
                return None
    except ValueError:  # an int too long to write: the general way raises it, or pickles the message
        return None
    return template % tuple(parts)
