"""Message classes as the wire names them (`module.Class`), and the errors of (de)serialisation,
whose base the class loader raises."""
import importlib


class SerializationError(Exception):
    pass


class MessageClassImportError(SerializationError, ImportError):
    """A message class named on the wire that cannot be imported (IoP 4's error type)."""


def classname_of(value):
    return classname_of_class(type(value))


def classname_of_class(cls):
    return f'{cls.__module__}.{cls.__name__}'


_class_cache = {}


def load_class(classname):
    cls = _class_cache.get(classname)
    if cls is not None:
        return cls
    if not classname:
        raise SerializationError('JSON message malformed, must include classname')
    module_name, _, class_name = classname.rpartition('.')
    if not module_name:
        raise MessageClassImportError(f'Classname must include a module: {classname}')
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except Exception as error:  # the message names the class whatever went wrong
        raise MessageClassImportError(f'Failed to load class {classname}: {error}') from error
    _class_cache[classname] = cls
    return cls
