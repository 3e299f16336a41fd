"""The failure converter of the worker's side (its TypeScript twin is src/bridge/failure.ts).

A Python exception crosses to the engine as a structured failure: its type, message, formatted
traceback, the frame of user code that raised, and the step the worker was running. The engine
raises it again with its kind intact; what the event log shows reads
`ValueError: bad input (at bo.py:12 in on_message)`.
"""
import os
import sysconfig
import traceback

# Code that is not the user's: this SDK (iop, iris, the host, ...) and the installed libraries.
_SDK_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_ROOTS = tuple(sorted({
    os.path.abspath(path)
    for name in ('stdlib', 'platstdlib', 'purelib', 'platlib')
    for path in [sysconfig.get_paths().get(name)]
    if path
}))
_NOT_USER = (_SDK_ROOT,) + _LIBRARY_ROOTS


def is_user_file(filename):
    """Frames of compiled text (`<dtl python>`) are the user's; importlib's `<frozen ...>` are not."""
    if filename.startswith('<'):
        return not filename.startswith('<frozen')
    path = os.path.abspath(filename)
    return not any(path == root or path.startswith(root + os.sep) for root in _NOT_USER)


def user_frame(error):
    """The innermost user-code frame of the error, else of its causes; None when the SDK raised alone."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        for frame in reversed(traceback.extract_tb(error.__traceback__)):
            if is_user_file(frame.filename):
                return {'file': frame.filename, 'line': frame.lineno or 0, 'function': frame.name}
        if isinstance(error, SyntaxError) and error.filename and is_user_file(error.filename):
            # A module that does not compile has no frame of its own: the error says where.
            return {'file': error.filename, 'line': error.lineno or 0, 'function': '<module>'}
        error = error.__cause__ or error.__context__
    return None


def failure_of(error, step):
    return {
        'type': type(error).__name__,
        'message': str(error),
        'traceback': ''.join(traceback.format_exception(type(error), error, error.__traceback__)),
        'userFrame': user_frame(error),
        'step': step,
    }
