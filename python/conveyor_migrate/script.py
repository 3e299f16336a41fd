"""Reads a settings.py for the engine: the worker host (conveyor_host) answers a `migrate` frame with
`read_settings(path)`, which loads the file with its folder as the import root and returns
`{"classes": [...], "productions": [...], "schemas": [...], "missing": [...]}`. A file that is not
valid raises EntryError (chained to the user's exception), which crosses as a structured failure.
What the user's modules print goes to the worker's stdout/stderr, never into the answer."""
import importlib.util
import inspect
import json
import os
import sys

from iop._schema import message_schema
from iop.messages.persistent import is_persistent_message_class

from .classes import EntryError, register_classes
from .productions import register_productions


def load_settings(path):
    """Imports the settings file under its own stem (IoP 4: any file name works), its folder first on sys.path."""
    root = os.path.dirname(path)
    sys.path.insert(0, root)
    name = os.path.splitext(os.path.basename(path))[0] or 'settings'
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def register_schemas(classes):
    if not isinstance(classes, (list, tuple)):
        raise EntryError('SCHEMAS must be a list of message classes')
    schemas = []
    for index, cls in enumerate(classes):
        label = f'{cls.__module__}.{cls.__name__}' if inspect.isclass(cls) else repr(cls)
        if is_persistent_message_class(cls):
            raise EntryError(f'SCHEMAS[{index}] ({label}) is a PersistentMessage. Register it in CLASSES, not SCHEMAS.')
        try:
            schema = message_schema(cls)
        except Exception as error:
            raise EntryError(f'SCHEMAS[{index}] ({label}): {error}') from error
        schemas.append({'name': label, 'category': label, 'schema': json.dumps(schema, ensure_ascii=False)})
    return schemas


def read_settings(path, strict_production_validation=False):
    """`strict_production_validation`: a Production with validation issues fails the migration
    (ProductionValidationError) instead of warning; the issues are listed under `validation`."""
    path = os.path.abspath(path)
    root = os.path.dirname(path)
    try:
        settings = load_settings(path)
    except Exception as error:
        raise EntryError(f'loading the file failed: {type(error).__name__}: {error}') from error
    document = {'classes': [], 'productions': [], 'schemas': [], 'missing': []}
    validation = []
    if hasattr(settings, 'CLASSES'):
        document['classes'].extend(register_classes(settings.CLASSES, root))
    else:
        document['missing'].append('classes')
    if hasattr(settings, 'PRODUCTIONS'):
        productions, bindings = register_productions(settings.PRODUCTIONS, root, strict_production_validation, validation)
        document['productions'] = productions
        document['classes'].extend(bindings)
    else:
        document['missing'].append('productions')
    if hasattr(settings, 'SCHEMAS'):
        document['schemas'] = register_schemas(settings.SCHEMAS)
    else:
        document['missing'].append('schemas')
    if validation:  # only when there are issues: the engine's document shape stays the same otherwise
        document['validation'] = validation
    return document
