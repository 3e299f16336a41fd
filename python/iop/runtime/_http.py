"""A small JSON-over-HTTP client (standard library only) for Conveyor's `/api/iop` routes, over TCP(S)
or the home's unix socket."""
import base64
import http.client
import json
import socket
import ssl
import urllib.parse


class HTTPError(RuntimeError):
    """A non-2xx answer: `status` and the server's error text."""

    def __init__(self, status, reason, error, code=''):
        self.status = status
        self.error = error
        self.code = code
        super().__init__(f'{status} {reason}: {error}')


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__('localhost', timeout=timeout)
        self._socket_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect(self._socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


class JsonClient:
    def __init__(self, *, url=None, socket_path=None, username='', password='', verify_ssl=True, prefix='/api/iop', timeout=30):
        if (url is None) == (socket_path is None):
            raise ValueError('JsonClient needs a url or a socket path')
        self.url = url.rstrip('/') if url else None
        self.socket_path = socket_path
        self.timeout = timeout
        self.verify_ssl = verify_ssl
        self._auth = None
        if username or password:
            self._auth = 'Basic ' + base64.b64encode(f'{username}:{password}'.encode('utf-8')).decode('ascii')
        parsed = urllib.parse.urlsplit(self.url) if self.url else None
        self._parsed = parsed
        self._prefix = ((parsed.path.rstrip('/') if parsed else '') + prefix)

    def _connection(self, timeout):
        if self.socket_path:
            return _UnixConnection(self.socket_path, timeout)
        parsed = self._parsed
        if parsed.scheme == 'https':
            context = ssl.create_default_context()
            if not self.verify_ssl:
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
            return http.client.HTTPSConnection(parsed.hostname, parsed.port, timeout=timeout, context=context)
        return http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=timeout)

    def request(self, method, path, *, params=None, body=None, timeout=None, raw=False):
        query = urllib.parse.urlencode({k: v for k, v in (params or {}).items() if v is not None})
        target = self._prefix + path + (f'?{query}' if query else '')
        headers = {'Accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode('utf-8')
            headers['Content-Type'] = 'application/json'
        if self._auth:
            headers['Authorization'] = self._auth
        connection = self._connection(timeout or self.timeout)
        try:
            connection.request(method, target, body=data, headers=headers)
            response = connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as error:
            where = self.socket_path or self.url
            raise ConnectionError(f'Cannot reach the Conveyor server at {where}: {error}') from error
        finally:
            connection.close()
        text = payload.decode('utf-8', errors='replace')
        if not 200 <= response.status < 300:
            code = ''
            try:
                parsed = json.loads(text)
                error = parsed.get('error') or parsed.get('message') or text if isinstance(parsed, dict) else text
                code = parsed.get('code', '') if isinstance(parsed, dict) else ''
            except ValueError:
                error = text or response.reason
            raise HTTPError(response.status, response.reason, error, code)
        if raw:
            return text
        if not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text
