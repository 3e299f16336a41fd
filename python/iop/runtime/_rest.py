"""The Director over Conveyor's REST API: the same routes locally (the home's unix socket) and
remotely (a URL with Basic auth), as IoP 4.1.1's `_LocalDirector` / `_RemoteDirector` offer them."""
import dataclasses
import hashlib
import json
import os
import time

from ._http import HTTPError, JsonClient


class _RestDirector:
    is_remote = False

    def __init__(self, client, namespace='USER'):
        self._client = client
        self._namespace = namespace or 'USER'

    @property
    def namespace(self):
        return self._namespace

    # --- transport --------------------------------------------------------------------------------
    def _get(self, path, params=None, **options):
        return self._client.request('GET', path, params={'namespace': self._namespace, **(params or {})}, **options)

    def _post(self, path, body=None, **options):
        return self._client.request('POST', path, params={'namespace': self._namespace}, body=body or {}, **options)

    def _put(self, path, body=None, **options):
        return self._client.request('PUT', path, params={'namespace': self._namespace}, body=body or {}, **options)

    def _delete(self, path, params=None):
        return self._client.request('DELETE', path, params={'namespace': self._namespace, **(params or {})})

    # --- productions ------------------------------------------------------------------------------
    def get_default_production(self):
        answer = self._get('/default') or {}
        return answer.get('production') or 'Not defined'

    def set_default_production(self, production_name=''):
        return self._put('/default', {'production': production_name or ''})

    def list_productions(self):
        return self._get('/list') or {}

    def status_production(self):
        answer = self._get('/status') or {}
        return {'Production': answer.get('production', ''), 'Status': answer.get('status', '')}

    def start_production(self, production_name=None):
        body = {'production': production_name} if production_name else {}
        return self._post('/start', body, timeout=600)

    def start_production_with_log(self, production_name=None):
        self.start_production(production_name)
        return self.log_production_top(10)

    def stop_production(self):
        return self._post('/stop', timeout=600)

    def shutdown_production(self):
        return self._post('/kill', timeout=600)

    kill_production = shutdown_production

    def restart_production(self):
        return self._post('/restart', timeout=600)

    def update_production(self):
        return self._post('/update', timeout=600)

    def export_production(self, production_name=None):
        params = {'production': production_name} if production_name else {}
        return self._get('/export', params)

    def log_production_top(self, top=10):
        entries = self._get('/log', {'top': int(top)}) or []
        for entry in reversed(entries):
            print(format_log_entry(entry))
        return entries

    def read_top_log(self, top=10):
        return self._get('/log', {'top': int(top)}) or []

    def log_production(self, poll_seconds=1.0, stop_after=None):
        """Follows the event log until interrupted (or `stop_after` seconds)."""
        entries = self._get('/log', {'top': 10}) or []
        last = 0
        for entry in reversed(entries):
            print(format_log_entry(entry))
            last = max(last, int(entry.get('id', 0)))
        started = time.monotonic()
        try:
            while stop_after is None or time.monotonic() - started < stop_after:
                time.sleep(poll_seconds)
                for entry in self._get('/log', {'since_id': last}) or []:
                    print(format_log_entry(entry))
                    last = max(last, int(entry.get('id', 0)))
        except KeyboardInterrupt:
            return None
        return None

    def test_component(self, target, message=None, classname=None, body=None, restart=True):
        if message is not None:
            classname, body = message_to_classname_body(message)
        payload = {'target': target, 'classname': classname, 'body': body if body is not None else {}}
        if restart is not None:
            payload['restart'] = bool(restart)
        answer = self._post('/test', payload, timeout=600)
        return decode_test_answer(answer)

    # --- components -------------------------------------------------------------------------------
    def _component(self, action, name):
        return self._post(f'/component/{action}', {'component': name})

    def start_component(self, name):
        return self._component('start', name)

    def stop_component(self, name):
        return self._component('stop', name)

    def restart_component(self, name):
        return self._component('restart', name)

    def list_bindings(self, unused_only=False):
        answer = self._get('/bindings', {'unused': 1} if unused_only else None)
        return answer if isinstance(answer, list) else []

    list_component_bindings = list_bindings

    def unbind_component(self, iris_classname):
        if not iris_classname:
            raise ValueError('A class name is required.')
        return self._delete('/binding', {'class': iris_classname})

    unregister_component = unbind_component

    def export_production_connections(self, production_name=None):
        return self._get('/connections', {'production': production_name} if production_name else None)

    def export_production_queue_info(self, production_name=None):
        return self._get('/queues', {'production': production_name} if production_name else None)

    # --- definitions (DSL) ------------------------------------------------------------------------
    def stored_fingerprint(self, production_name):
        """The server's fingerprint of the stored definition (SHA-256 of its canonical structured JSON), or
        None when none is stored or the server has no GET /definition."""
        try:
            definition = self._get('/definition', {'production': production_name})
        except Exception:
            return None
        canonical = json.dumps(definition, sort_keys=True, separators=(',', ':'), ensure_ascii=False)
        return hashlib.sha256(canonical.encode('utf-8')).hexdigest()

    def apply_production_definition(self, definition, *, allow_destructive=False, update=True, source_fingerprint=None):
        """Writes a production definition (IoP's dict); the server records the previous one. With
        `source_fingerprint` the server refuses (409) when the stored definition is no longer that one."""
        body = {'definition': _iop_definition(definition), 'allow_destructive': bool(allow_destructive)}
        if source_fingerprint:
            body['source_fingerprint'] = source_fingerprint
        try:
            return self._post('/production/apply', body, timeout=600) or {}
        except HTTPError as error:
            if error.status not in (404, 405):  # only a server without the apply route falls back
                raise
        # A server without the apply route: store the definition, then update a running production.
        from ..production._reconstruction import production_body

        name, _ = production_body(definition)
        self._put('/definition', {'definition': _structured_definition(definition)})
        status = self.status_production()
        updated = False
        if update and status.get('Production') == name and status.get('Status') == 'running':
            self.update_production()
            updated = True
        return {'production': name, 'updated_runtime': updated}

    def rollback_production(self, production_name):
        """Restores the definition the server recorded before the last apply."""
        return self._post('/production/rollback', {'production': production_name}, timeout=600)

    def apply_production_plan(self, plan, allow_destructive=False):
        from ..production._plan_apply import apply_plan_to_stored

        return apply_plan_to_stored(self, plan, allow_destructive)

    def migrate(self, path, strict_production_validation=False):
        raise NotImplementedError


def _iop_definition(definition):
    from ..production._reconstruction import production_body

    name, body = production_body(definition)
    return {'Production': dict(body, **{'@Name': name})}


def _structured_definition(definition):
    from ..production._reconstruction import production_body

    name, body = production_body(definition)

    def as_list(value):
        return [] if value is None else value if isinstance(value, list) else [value]

    def flag(value, default):
        return default if value in (None, '') else str(value).strip().lower() in ('1', 'true', 'yes', 'on')

    items = []
    for item in as_list(body.get('Item')):
        items.append({
            'name': item.get('@Name', ''), 'classname': item.get('@ClassName', ''),
            'pool_size': int(item.get('@PoolSize') or 1), 'enabled': flag(item.get('@Enabled'), True),
            'foreground': flag(item.get('@Foreground'), False), 'comment': item.get('@Comment', '') or '',
            'log_trace_events': flag(item.get('@LogTraceEvents'), False), 'schedule': item.get('@Schedule', '') or '',
            'settings': [{'target': s.get('@Target', 'Host'), 'name': s.get('@Name', ''), 'value': str(s.get('#text', '') or '')}
                         for s in as_list(item.get('Setting')) if s.get('@Target', 'Host') in ('Host', 'Adapter')],
        })
    production_settings = [{'name': s.get('@Name', ''), 'value': str(s.get('#text', '') or '')}
                           for s in as_list(body.get('Setting')) if s.get('@Target', 'Production') in ('', 'Production')]
    return {
        'name': name, 'description': body.get('Description', '') or '', 'test_enabled': flag(body.get('@TestingEnabled'), False),
        'log_trace_events': flag(body.get('@LogGeneralTraceEvents'), False), 'actor_pool_size': int(body.get('ActorPoolSize') or 2),
        'items': items, 'settings': production_settings,
    }


def format_log_entry(entry):
    return ' '.join(str(entry.get(key, '')) for key in ('time_logged', 'type', 'config_name', 'job', 'message_id', 'session_id', 'source_class', 'source_method', 'text'))


def message_to_classname_body(message):
    """(classname, JSON body) of a message object, as `test_component` sends it."""
    from .._serialization import is_pydantic_message, serialize

    if is_pydantic_message(message):
        return f'{type(message).__module__}.{type(message).__name__}', json.loads(message.model_dump_json())
    if dataclasses.is_dataclass(message) and not isinstance(message, type):
        wire = serialize(message)
        return wire['classname'], json.loads(wire['data'])
    wire = serialize(message)
    if wire is None:
        return None, None
    return wire['classname'], json.loads(wire['data']) if wire.get('data') else {}


def decode_test_answer(answer):
    """A test reply as a Python object when its class imports here, else IoP 4's dict form."""
    if not isinstance(answer, dict):
        return answer
    classname, body = answer.get('classname', ''), answer.get('body', '')
    if not classname:
        return None
    from .._serialization import deserialize

    try:
        encoding = 'native' if '.' not in classname or classname.startswith(('Ens.', 'EnsLib.', 'IOP.')) else 'json'
        return deserialize({'classname': classname, 'encoding': encoding, 'data': body or '{}'})
    except Exception:
        return {'classname': classname, 'body': body, 'truncated': bool(answer.get('truncated', False))}


class _LocalDirector(_RestDirector):
    """The Conveyor server of this home (CONVEYOR_HOME, else ~/.conveyor), over its unix socket."""

    def __init__(self, home=None, namespace=None):
        home = home or os.environ.get('CONVEYOR_HOME') or os.path.join(os.path.expanduser('~'), '.conveyor')
        self.home = home
        super().__init__(JsonClient(socket_path=os.path.join(home, 'conveyor.sock')), namespace or os.environ.get('IOP_NAMESPACE') or 'USER')

    def migrate(self, path, strict_production_validation=False):
        answer = self._put('/migrate', {'local_path': os.path.abspath(path), 'strict_production_validation': bool(strict_production_validation)}, timeout=600)
        for line in (answer or {}).get('output', []) if isinstance(answer, dict) else []:
            print(line)
        return answer


class _RemoteDirector(_RestDirector):
    """A remote Conveyor (or IRIS) server: `REMOTE_SETTINGS`-style dict with url, username, password,
    namespace, verify_ssl."""

    is_remote = True

    def __init__(self, remote_settings):
        settings = dict(remote_settings or {})
        if not settings.get('url'):
            raise ValueError('remote settings need a url')
        client = JsonClient(url=settings['url'], username=settings.get('username', ''), password=settings.get('password', ''),
                            verify_ssl=bool(settings.get('verify_ssl', True)))
        super().__init__(client, settings.get('namespace', 'USER'))
        self._settings = settings

    def apply_production_definition(self, definition, *, allow_destructive=False, update=True):
        raise RuntimeError('Remote production plan apply is not supported in v1.')

    def apply_production_plan(self, plan, allow_destructive=False):
        raise RuntimeError('Remote production plan apply is not supported in v1. Run apply against the local Conveyor home.')

    def migrate(self, path, strict_production_validation=False):
        """Uploads the settings file's folder (IoP: `package` / `remote_folder` from REMOTE_SETTINGS) and migrates it."""
        path = os.path.abspath(path)
        folder = os.path.dirname(path)
        package = self._settings.get('package') or os.path.basename(folder)
        files = []
        for root, directories, names in os.walk(folder):
            directories[:] = [d for d in directories if not d.startswith('.') and d != '__pycache__']
            for name in names:
                if name.endswith(('.pyc', '.pyo')) or name.startswith('.'):
                    continue
                full = os.path.join(root, name)
                try:
                    with open(full, encoding='utf-8') as source:
                        data = source.read()
                except (UnicodeDecodeError, OSError):
                    continue
                files.append({'name': os.path.relpath(full, folder).replace(os.sep, '/'), 'data': data})
        body = {'package': package, 'body': files, 'settings_file': os.path.basename(path),
                'strict_production_validation': bool(strict_production_validation)}
        if self._settings.get('remote_folder'):
            body['remote_folder'] = self._settings['remote_folder']
        return self._put('/migrate', body, timeout=600)
