"""Flow tests for Conveyor productions: run the real server on a throwaway home, push messages into a
business service or an item, and assert what reached each item.

    from conveyor_testing import Flow

    with Flow.start('path/to/settings.py', production='Demo.Orders') as flow:
        flow.send_to_service('OrderIn', 'msg.Order', {'id': 7, 'amount': 1200})
        [order] = flow.wait_for('BigOrders', count=1)
        assert order.body['id'] == 7
        flow.assert_nothing_reached('SmallOrders')

`Flow.start` spawns `conveyor serve` (this repository's bin/conveyor.js under `node`, or the command in
CONVEYOR_BIN) on a fresh temporary home and a free port, migrates the settings.py where it lies (over
the home's local socket, so no password is needed) and starts the production. The components run with
the Python that runs the tests (``sys.executable``: a virtual environment's packages are importable)
unless ``python=`` says otherwise. ``close()`` stops the server and removes the home (kept when
CONVEYOR_FLOW_KEEP_HOME=1, to look at it after a failure).

Failed expectations raise AssertionError, so unittest and pytest report them as test failures; a
server that cannot start, or a request it refuses, raises FlowError. Standard library only.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

__all__ = ['Flow', 'FlowError', 'Received', 'Reply']

_API = '/api/iop'


class FlowError(Exception):
    """The server could not be started, or refused a request (its error text is the message)."""


class Received:
    """One request that reached an item: who sent it, its message class and its body (a dict when JSON)."""

    def __init__(self, header, body):
        self.id = header['id']
        self.source = header['source']
        self.target = header['target']
        self.session_id = header['sessionId']
        self.status = header['status']
        self.error = header['error']
        self.classname = body['classname']
        self.body = _decoded(body)

    def __repr__(self):
        return 'Received(#%d %s -> %s, %s, %r)' % (self.id, self.source, self.target, self.classname, self.body)


class Reply:
    """What a call answered: the response's class and body ('' and None when it answered nothing)."""

    def __init__(self, classname, body, session_id=None):
        self.classname = classname
        self.body = _parsed(body)
        self.session_id = session_id

    def __repr__(self):
        return 'Reply(%s, %r)' % (self.classname, self.body)


def _parsed(text):
    if text in (None, ''):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _decoded(body):
    if body['encoding'] == 'json':
        return _parsed(body['data'])
    if body['encoding'] == 'empty':
        return {}
    return body['data']


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__('localhost', timeout=timeout)
        self._path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def _repository_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _server_command():
    given = os.environ.get('CONVEYOR_BIN')
    if given:
        return given.split()
    script = os.path.join(_repository_root(), 'bin', 'conveyor.js')
    node = shutil.which('node')
    if os.path.exists(script) and node:
        return [node, script]
    installed = shutil.which('conveyor')
    if installed:
        return [installed]
    raise FlowError('Cannot find the conveyor server: set CONVEYOR_BIN to its command (e.g. "node /path/to/bin/conveyor.js")')


class Flow:
    """A production running on its own throwaway server. Make one with ``Flow.start``."""

    def __init__(self, home, process, socket_path, output, namespace, request_timeout):
        self.home = home
        self.namespace = namespace
        self.production = None
        self._process = process
        self._socket = socket_path
        self._output = output
        self._request_timeout = request_timeout
        self._mark = 0

    # -- life cycle ---------------------------------------------------------------------------

    @classmethod
    def start(cls, settings, production=None, namespace='USER', python=None, env=None, start_timeout=120, request_timeout=300):
        """Starts a server on a new home, migrates ``settings`` (a settings.py) and starts ``production``
        (default: the only production the namespace then has)."""
        settings = os.path.abspath(settings)
        if not os.path.isfile(settings):
            raise FlowError('No settings file %s' % settings)
        home = tempfile.mkdtemp(prefix='conveyor-flow-')
        command = _server_command() + ['serve', '--home', home, '--port', '0', '--python', python or sys.executable]
        environment = dict(os.environ, CONVEYOR_HOME=home, **(env or {}))
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment, text=True)
        output = []
        ready = threading.Event()
        found = {}

        def read():
            for line in process.stdout:
                output.append(line)
                if 'local socket: ' in line and not ready.is_set():
                    found['socket'] = line.split('local socket: ', 1)[1].strip()
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        flow = cls(home, process, None, output, namespace, request_timeout)
        try:
            if not ready.wait(start_timeout) or 'socket' not in found:
                raise FlowError('The server did not start within %s s:\n%s' % (start_timeout, ''.join(output)))
            flow._socket = found['socket']
            flow._call('PUT', '/migrate', {'local_path': settings})
            flow.production = production or flow._only_production()
            flow._call('POST', '/start', {'production': flow.production})
            flow.reset()
        except BaseException:
            flow.close()
            raise
        return flow

    def close(self, timeout=30):
        """Stops the server (SIGTERM, then SIGKILL after ``timeout`` s) and removes the home."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if os.environ.get('CONVEYOR_FLOW_KEEP_HOME') != '1':
            shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def output(self):
        """What the server printed so far."""
        return ''.join(self._output)

    # -- sending ------------------------------------------------------------------------------

    def send(self, item, classname=None, body=None, timeout=None):
        """Sends a request to a process or operation and waits for its response (the API's test call)."""
        request = {'target': item, 'classname': classname, 'body': body or {}, 'restart': False}
        if timeout is not None:
            request['timeout'] = timeout
        reply = self._call('POST', '/test', request)
        return Reply(reply['classname'], reply['body'])

    def send_to_service(self, service, classname=None, body=None):
        """Pushes one input into a business service, as its adapter would (its on_process_input runs)."""
        reply = self._call('POST', '/component/input', {'service': service, 'classname': classname, 'body': body or {}})
        return Reply(reply['classname'], reply['body'], reply['session_id'])

    # -- what reached the items ---------------------------------------------------------------

    def reset(self):
        """Forgets what was received so far: ``received`` and the assertions look only at later messages."""
        newest = self._call('GET', '/messages?' + self._query(limit=1))['messages']
        self._mark = newest[0]['id'] if newest else 0

    def received(self, item, classname=None):
        """The requests that reached ``item`` since the start (or the last ``reset``), oldest first."""
        found = []
        before = None
        while True:
            query = {'target': item, 'kind': 'request', 'limit': 200}
            if before is not None:
                query['before'] = before
            page = self._call('GET', '/messages?' + self._query(**query))
            headers = [h for h in page['messages'] if h['id'] > self._mark]
            for header in headers:
                message = self._call('GET', '/messages/%d?%s' % (header['id'], self._query()))
                found.append(Received(header, message['body']))
            before = page['next_before']
            if before is None or len(headers) < len(page['messages']):
                break
        found.sort(key=lambda message: message.id)
        return [message for message in found if classname is None or message.classname == classname]

    def wait_for(self, item, count=1, classname=None, timeout=10.0):
        """Waits until at least ``count`` requests reached ``item``; returns them. AssertionError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.received(item, classname)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(
                    '%d message(s)%s expected to reach %s within %s s, %d did: %r\nLast event-log entries:\n%s'
                    % (count, ' of class ' + classname if classname else '', item, timeout, len(found), found, self._log_text())
                )
            time.sleep(0.1)

    def assert_received(self, item, count=None, classname=None, where=None, timeout=10.0):
        """Asserts that requests reached ``item`` (exactly ``count`` when given; each satisfying ``where``,
        a function of a Received, when given) and returns them."""
        found = self.wait_for(item, count or 1, classname, timeout)
        if count is not None and len(found) != count:
            raise AssertionError('%d message(s) expected to reach %s, %d did: %r' % (count, item, len(found), found))
        if where is not None:
            failing = [message for message in found if not where(message)]
            if failing:
                raise AssertionError('message(s) that reached %s do not satisfy the condition: %r' % (item, failing))
        return found

    def assert_nothing_reached(self, item, settle=0.5):
        """Asserts that no request reached ``item`` (after ``settle`` s, for messages still on their way)."""
        time.sleep(settle)
        found = self.received(item)
        if found:
            raise AssertionError('no message expected to reach %s, %d did: %r' % (item, len(found), found))

    def log(self, top=50):
        """The newest event-log entries, newest first (dicts with type, text, config_name …)."""
        return self._call('GET', '/log?' + self._query(top=top))

    # -- plumbing -----------------------------------------------------------------------------

    def _only_production(self):
        names = sorted(self._call('GET', '/list?' + self._query()).keys())
        if len(names) != 1:
            raise FlowError('Name the production to start: the namespace %s has %s' % (self.namespace, ', '.join(names) or 'none'))
        return names[0]

    def _log_text(self):
        try:
            return '\n'.join('  %s %s: %s' % (e.get('type'), e.get('config_name', ''), e.get('text')) for e in self.log(20))
        except FlowError as error:
            return '  (%s)' % error

    def _query(self, **values):
        return urllib.parse.urlencode(dict(values, namespace=self.namespace))

    def _call(self, method, path, body=None):
        if body is not None and method != 'GET':
            body = dict(body, namespace=self.namespace)
        connection = _UnixConnection(self._socket, self._request_timeout)
        try:
            payload = None if body is None else json.dumps(body)
            headers = {} if payload is None else {'Content-Type': 'application/json'}
            connection.request(method, _API + path, body=payload, headers=headers)
            response = connection.getresponse()
            text = response.read().decode('utf-8')
        except OSError as error:
            raise FlowError('%s %s: the server did not answer (%s)\n%s' % (method, path, error, self.output[-4000:]))
        finally:
            connection.close()
        data = _parsed(text)
        if response.status >= 400:
            message = data.get('error') if isinstance(data, dict) else text
            raise FlowError('%s %s: %s' % (method, path, message))
        return data
