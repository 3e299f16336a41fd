"""Typed one-argument dispatch: a method whose single parameter is annotated with a message class
handles that class. Each component class gets its own DISPATCH table (IoP shared one list between
all classes of a process; hosting several classes in one interpreter must not)."""
import inspect


def message_key(message):
    cls = type(message)
    return f'{cls.__module__}.{cls.__name__}'


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
    if inspect.isclass(annotation):
        return f'{annotation.__module__}.{annotation.__name__}'
    return None


def build_table(cls):
    table = []
    for name, member in inspect.getmembers(cls):
        if name.startswith('_') or not inspect.isfunction(member):
            continue
        try:
            parameters = list(inspect.signature(member).parameters.values())
        except (TypeError, ValueError):
            continue
        # Plain functions on the class: the first parameter is `self`.
        if len(parameters) != 2 or parameters[1].kind not in (parameters[1].POSITIONAL_ONLY, parameters[1].POSITIONAL_OR_KEYWORD):
            continue
        key = annotation_key(parameters[1].annotation, member)
        if key is not None:
            table.append((key, name))
    return table


def dispatch_table(cls):
    """The class's own table: a non-empty DISPATCH the user declared on it, else one built once."""
    declared = cls.__dict__.get('DISPATCH')
    if declared:
        return declared
    table = build_table(cls)
    cls.DISPATCH = table
    return table


def find_handler(instance, message, fallback='on_message'):
    key = message_key(message)
    chosen = None
    for entry_key, method_name in dispatch_table(type(instance)):
        if entry_key == key:
            chosen = method_name
    return getattr(instance, chosen or fallback)
