"""`iop.runtime.remote`: the director of a remote server and how remote settings are found (IoP 4 layout)."""
import ast
import os

from .._rest import _RemoteDirector  # noqa: F401


def load_remote_settings_from_file(settings_path):
    """A literal `REMOTE_SETTINGS = {"url": ...}` of a settings file, read without running the file."""
    try:
        with open(settings_path, encoding='utf-8') as source:
            tree = ast.parse(source.read(), filename=settings_path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(target, ast.Name) and target.id == 'REMOTE_SETTINGS' for target in targets):
            try:
                settings = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError):
                return None
            return settings if isinstance(settings, dict) and 'url' in settings else None
    return None


def get_remote_settings(explicit_settings_path=None, fallback_settings_path=None):
    """IOP_URL (+ IOP_USERNAME, IOP_PASSWORD, IOP_NAMESPACE, IOP_VERIFY_SSL), else the REMOTE_SETTINGS of
    the explicit file, IOP_SETTINGS, or the fallback file; None when nothing asks for remote mode."""
    url = os.environ.get('IOP_URL')
    if url:
        return {
            'url': url,
            'username': os.environ.get('IOP_USERNAME', ''),
            'password': os.environ.get('IOP_PASSWORD', ''),
            'namespace': os.environ.get('IOP_NAMESPACE', 'USER'),
            'verify_ssl': os.environ.get('IOP_VERIFY_SSL', '1').lower() not in ('0', 'false'),
        }
    for path in filter(None, (explicit_settings_path, os.environ.get('IOP_SETTINGS'), fallback_settings_path)):
        settings = load_remote_settings_from_file(path)
        if settings:
            return settings
    return None
