"""EnsLib.HTTP.OutboundAdapter for Python operations (`self.adapter`), on the standard library.

Settings (IRIS's names): HTTPServer, HTTPPort (default 80, 443 with TLS), URL (the path, default
`/`), SSLConfig (any value turns TLS on with the system's trusted certificates; the path of a PEM
file trusts that file's certificates instead), SSLCheckServerIdentity (default true), Credentials
(`user:password`, sent as Basic authentication), ConnectTimeout (default 5 s) and ResponseTimeout
(default 30 s).

Each call returns an HttpResponse (StatusCode, ReasonPhrase, headers, Data as a stream). A status
of 400 or more raises HTTPStatusError, as IRIS's adapter returns an error status; the response is
on the exception."""
import base64
import http.client
import json
import os
import ssl
import urllib.parse

from iop._components import OutboundAdapter

from .stream import FileStream


class HTTPStatusError(Exception):
    def __init__(self, response, method, url):
        super().__init__(f'Received non-OK status {response.StatusCode} from remote HTTP server for {method} {url}: {response.StatusLine}')
        self.response = response


class HttpResponse:
    def __init__(self, status, reason, version, headers, body):
        self.StatusCode = status
        self.ReasonPhrase = reason
        self.HttpVersion = version
        self.StatusLine = f'{version} {status} {reason}'
        self.Headers = {name.lower(): value for name, value in headers}
        self.ContentType = self.Headers.get('content-type', '')
        self.ContentLength = len(body)
        self.Data = FileStream(body, '', '', _charset_of(self.ContentType))
        self.content = body

    def GetHeader(self, name):
        return self.Headers.get(str(name).lower(), '')

    def read(self):
        return self.content

    @property
    def text(self):
        return self.content.decode(_charset_of(self.ContentType) or 'utf-8', errors='replace')

    def json(self):
        return json.loads(self.text)

    def __repr__(self):
        return f'<HttpResponse {self.StatusLine}>'


def _charset_of(content_type):
    for part in content_type.split(';')[1:]:
        key, _, value = part.strip().partition('=')
        if key.lower() == 'charset' and value:
            return value.strip('"')
    return 'UTF-8'


def _flag(value):
    if isinstance(value, str):
        return value.strip().lower() not in ('0', 'false', '')
    return bool(value)


class HTTPOutboundAdapter(OutboundAdapter):
    HTTPServer: str = ''
    HTTPPort: str = ''
    URL: str = ''
    SSLConfig: str = ''
    SSLCheckServerIdentity: str = '1'
    Credentials: str = ''
    ConnectTimeout: str = '5'
    ResponseTimeout: str = '30'

    def on_init(self):
        if not self.HTTPServer:
            raise ValueError('EnsLib.HTTP.OutboundAdapter needs the Adapter setting HTTPServer')
        if self.SSLConfig and os.path.sep in self.SSLConfig and not os.path.isfile(self.SSLConfig):
            raise ValueError(f'SSLConfig {self.SSLConfig} is not a readable certificate file')

    # --- IRIS's methods ---------------------------------------------------------------------
    def Get(self, url=None, params=None, headers=None):
        return self._send('GET', url, params=params, headers=headers)

    def Post(self, data=None, url=None, headers=None, content_type=None):
        return self._send('POST', url, data=data, headers=headers, content_type=content_type)

    def Put(self, data=None, url=None, headers=None, content_type=None):
        return self._send('PUT', url, data=data, headers=headers, content_type=content_type)

    def Patch(self, data=None, url=None, headers=None, content_type=None):
        return self._send('PATCH', url, data=data, headers=headers, content_type=content_type)

    def Delete(self, url=None, data=None, headers=None):
        return self._send('DELETE', url, data=data, headers=headers)

    def SendFormData(self, method, form_var_names='', *values, url=None, headers=None):
        """IRIS's form call: the comma-separated names take the values in order (in the query string
        for GET and DELETE, as an url-encoded form body otherwise); a value beyond the names is the body."""
        names = [n.strip() for n in (form_var_names or '').split(',') if n.strip()]
        fields = list(zip(names, values))
        extra = values[len(names):]
        return self._send_form(method, fields, extra[0] if extra else None, url, headers)

    def SendFormDataArray(self, method, form_var_names, data, url=None, headers=None):
        """The same with the values in a dict (a list value repeats its name) or a list."""
        names = [n.strip() for n in (form_var_names or '').split(',') if n.strip()]
        fields = []
        body = None
        if isinstance(data, dict):
            for name in names or list(data):
                value = data.get(name, '')
                for item in value if isinstance(value, (list, tuple)) else [value]:
                    fields.append((name, item))
        else:
            values = list(data or [])
            fields = list(zip(names, values))
            body = values[len(names)] if len(values) > len(names) else None
        return self._send_form(method, fields, body, url, headers)

    # --- the request ------------------------------------------------------------------------
    def _send_form(self, method, fields, body, url, headers):
        method = method.upper()
        pairs = [(name, '' if value is None else str(value)) for name, value in fields]
        if method in ('GET', 'DELETE', 'HEAD') or body is not None:
            return self._send(method, url, params=pairs, data=body, headers=headers)
        return self._send(method, url, data=urllib.parse.urlencode(pairs).encode('ascii'), headers=headers,
                          content_type='application/x-www-form-urlencoded')

    def _send(self, method, url, params=None, data=None, headers=None, content_type=None):
        scheme, host, port, path = self._target(url)
        if params:
            query = urllib.parse.urlencode(list(params.items()) if isinstance(params, dict) else params, doseq=True)
            path += ('&' if '?' in path else '?') + query
        body, body_type = _body(data)
        sent = {'User-Agent': 'Conveyor EnsLib.HTTP.OutboundAdapter', 'Accept': '*/*'}
        if body is not None:
            sent['Content-Type'] = content_type or body_type
        if self.Credentials and ':' in self.Credentials:
            sent['Authorization'] = 'Basic ' + base64.b64encode(self.Credentials.encode('utf-8')).decode('ascii')
        sent.update(headers or {})
        connection = self._connection(scheme, host, port)
        try:
            connection.connect()
            connection.sock.settimeout(float(self.ResponseTimeout or 30))
            connection.request(method, path, body=body, headers=sent)
            reply = connection.getresponse()
            content = reply.read()
            version = 'HTTP/1.1' if reply.version == 11 else 'HTTP/1.0'
            response = HttpResponse(reply.status, reply.reason, version, reply.getheaders(), content)
        finally:
            connection.close()
        if response.StatusCode >= 400:
            raise HTTPStatusError(response, method, f'{scheme}://{host}:{port}{path}')
        return response

    def _target(self, url):
        """(scheme, host, port, path): the settings, with `url` as the path, or a whole URL overriding them."""
        tls = bool(self.SSLConfig)
        if url and '://' in str(url):
            parts = urllib.parse.urlsplit(str(url))
            secure = parts.scheme == 'https'
            path = (parts.path or '/') + (f'?{parts.query}' if parts.query else '')
            return parts.scheme, parts.hostname, parts.port or (443 if secure else 80), path
        path = str(url if url is not None else self.URL) or '/'
        if not path.startswith('/'):
            path = '/' + path
        port = int(self.HTTPPort) if str(self.HTTPPort).strip() else (443 if tls else 80)
        return ('https' if tls else 'http'), self.HTTPServer, port, path

    def _connection(self, scheme, host, port):
        timeout = float(self.ConnectTimeout or 5)
        if scheme != 'https':
            return http.client.HTTPConnection(host, port, timeout=timeout)
        cafile = self.SSLConfig if self.SSLConfig and os.path.isfile(self.SSLConfig) else None
        context = ssl.create_default_context(cafile=cafile)
        if not _flag(self.SSLCheckServerIdentity):
            context.check_hostname = False
        return http.client.HTTPSConnection(host, port, timeout=timeout, context=context)


def _body(data):
    """(bytes or None, its content type)."""
    if data is None:
        return None, None
    if isinstance(data, (bytes, bytearray)):
        return bytes(data), 'application/octet-stream'
    if isinstance(data, str):
        return data.encode('utf-8'), 'text/plain; charset=utf-8'
    if isinstance(data, FileStream):
        return data.getvalue(), 'application/octet-stream'
    if hasattr(data, 'read'):
        content = data.read()
        return (content.encode('utf-8') if isinstance(content, str) else bytes(content)), 'application/octet-stream'
    return json.dumps(data).encode('utf-8'), 'application/json'
