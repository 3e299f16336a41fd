"""Which method handles a request: `@handler(MessageType)` methods, a declared DISPATCH list, and typed
one-argument methods (the single parameter annotated with a message class), else `on_message`.

Per message key an `@handler` method wins over DISPATCH and typed methods; otherwise the later
candidate wins in the order @handler (by name), DISPATCH (as declared), typed (by name), so a typed
method overrides a DISPATCH entry (IoP 4). Each discarded duplicate is logged as a warning. Each
component class gets its own table (IoP 3.6 shared one list between all classes of a process).
"""
import inspect
import typing

_HANDLER_ATTRIBUTE = '__iop_handler_message__'
# Annotations that name no message type: a method taking one of these is not a typed handler.
_NOT_MESSAGES = (str, bytes, int, float, bool, dict, list, tuple, object, typing.Any)


def message_key(message):
    cls = type(message)
    return f'{cls.__module__}.{cls.__name__}'


def request_keys(message):
    """The keys a request matches: `module.Class`, and for native objects also `<IRISClass>`."""
    key = message_key(message)
    if type(message).__module__ == 'iris':
        return (key, type(message).__name__)
    return (key,)


def declared_key(message_type):
    """The key of what `@handler(...)` names: a message class, a class name or a native object."""
    if isinstance(message_type, str):
        name = message_type.strip()
        return name or None
    dispatch_key = getattr(message_type, '__dispatch_key__', None)
    if isinstance(dispatch_key, str):
        return dispatch_key
    if inspect.isclass(message_type):
        return f'{message_type.__module__}.{message_type.__name__}'
    if type(message_type).__module__ == 'iris':
        return f'iris.{type(message_type).__name__}'
    return None


def handler(message_type):
    """Declares the decorated method as the handler of `message_type` (a message class, its
    `module.Class` name, or an IRIS class such as `iris.Ens.StringRequest`)."""
    key = declared_key(message_type)
    if key is None:
        raise TypeError('handler() requires a message class or class name')

    def mark(method):
        setattr(method, _HANDLER_ATTRIBUTE, key)
        return method

    return mark


def annotation_key(annotation, function):
    """The DISPATCH key of a parameter annotation, or None when it names no message type."""
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        if '.' in annotation:
            return annotation
        resolved = function.__globals__.get(annotation)
        if resolved is None:
            return annotation
        annotation = resolved
    dispatch_key = getattr(annotation, '__dispatch_key__', None)
    if isinstance(dispatch_key, str):
        return dispatch_key
    if any(annotation is plain for plain in _NOT_MESSAGES):
        return None
    if inspect.isclass(annotation):
        return f'{annotation.__module__}.{annotation.__name__}'
    return None


def _typed_key(member):
    try:
        parameters = list(inspect.signature(member).parameters.values())
    except (TypeError, ValueError):
        return None
    # Plain functions on the class: the first parameter is `self`.
    if len(parameters) != 2 or parameters[1].kind not in (parameters[1].POSITIONAL_ONLY, parameters[1].POSITIONAL_OR_KEYWORD):
        return None
    return annotation_key(parameters[1].annotation, member)


def _candidates(cls):
    handlers, typed = [], []
    for name, member in sorted(inspect.getmembers(cls)):
        if not inspect.isfunction(member):
            continue
        declared = getattr(member, _HANDLER_ATTRIBUTE, None)
        if declared is not None:
            handlers.append((declared, name, '@handler'))
            continue
        if name.startswith('_'):
            continue
        key = _typed_key(member)
        if key is not None:
            typed.append((key, name, 'typed method'))
    declared_list = [(str(key), str(name), 'DISPATCH') for key, name in (cls.__dict__.get('DISPATCH') or [])]
    return handlers + declared_list + typed


def build_table(cls, warn=None):
    """`[(key, method name)]`, one entry per key, with the precedence of the module docstring."""
    chosen = {}
    for key, name, source in _candidates(cls):
        kept = chosen.get(key)
        if kept is not None and kept[0] != name:
            if kept[1] == '@handler' and source != '@handler':
                winner, loser = kept, (name, source)
            else:
                winner, loser = (name, source), kept
            if warn is not None:
                warn(f'Duplicate dispatch mapping for {key}: keeping {winner[0]} from {winner[1]}; discarding {loser[0]} from {loser[1]}.')
            chosen[key] = winner
        else:
            chosen[key] = (name, source)
    return [(key, name) for key, (name, _) in chosen.items()]


def dispatch_table(cls):
    """The class's own table, built once per class."""
    table = cls.__dict__.get('_conveyor_dispatch_table')
    if table is None:
        table = build_table(cls, _class_warning(cls))
        cls._conveyor_dispatch_table = table
    return table


def _class_warning(cls):
    def warn(text):
        from . import _runtime

        try:
            _runtime.emit_log('Warning', text, cls.__name__, 'on_init')
        except OSError:  # a log line must never stop the dispatch
            pass

    return warn


# (component class, message class, fallback) -> the handler's name: the table and a message's keys
# depend on the classes alone, and walking the table cost as much as the rest of a small dispatch.
_handler_names = {}


def find_handler(instance, message, fallback='on_message'):
    session_handler = getattr(instance, '_on_private_session_message', None)
    if session_handler is not None:
        from ._duplex import private_session_classname

        if private_session_classname(message) is not None:
            return session_handler
    cache_key = (type(instance), type(message), fallback)
    name = _handler_names.get(cache_key)
    if name is None:
        name = _handler_name(type(instance), message, fallback)
        _handler_names[cache_key] = name
    return getattr(instance, name)


def _handler_name(cls, message, fallback):
    keys = request_keys(message)
    for entry_key, method_name in dispatch_table(cls):
        if entry_key in keys or (entry_key.startswith('iris.') and entry_key[5:] in keys):
            return method_name
    return fallback
