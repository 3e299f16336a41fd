"""IRIS's adapters for Python components (conveyor_host.enslib): the file inbound adapter on real
folders, the file outbound adapter's methods, and the HTTP outbound adapter against a real local
HTTP server (and HTTPS with a certificate made here by openssl)."""
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import threading
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conveyor_host.enslib.file_inbound import FileInboundAdapter
from conveyor_host.enslib.file_outbound import FileOutboundAdapter
from conveyor_host.enslib.http_outbound import HTTPOutboundAdapter, HTTPStatusError
from conveyor_host.enslib.stream import FileStream


def adapter(cls, **settings):
    """An adapter as the worker makes one: settings applied as attributes, then on_init."""
    instance = cls.__new__(cls)
    for name, value in settings.items():
        setattr(instance, name, value)
    instance.on_init()
    return instance


class Recorder:
    """The service side of an inbound adapter: `ProcessInput` records what it is given."""

    def __init__(self, fail_on=None):
        self.received = []
        self.fail_on = fail_on

    def ProcessInput(self, stream):
        if stream.OriginalFilename == self.fail_on:
            raise RuntimeError('the service failed')
        self.received.append((stream.OriginalFilename, stream.Filename, stream.Size, stream.read()))


class FileStreamTest(unittest.TestCase):
    def test_reads_like_an_iris_stream(self):
        stream = FileStream('première ligne\r\nsecond\nlast'.encode('utf-8'), '/in/a.txt', 'a.txt')
        self.assertEqual((stream.Filename, stream.OriginalFilename, stream.Attributes['Filename']), ('/in/a.txt', 'a.txt', '/in/a.txt'))
        self.assertEqual(stream.Size, len('première ligne\r\nsecond\nlast'.encode('utf-8')))
        self.assertEqual(stream.ReadLine(), 'première ligne')
        self.assertEqual(stream.ReadLine(), 'second')
        self.assertFalse(stream.AtEnd)
        self.assertEqual(stream.ReadLine(), 'last')
        self.assertTrue(stream.AtEnd)
        stream.Rewind()
        self.assertEqual(stream.Read(3), 'pre')
        stream.Rewind()
        self.assertEqual(list(stream), ['première ligne', 'second', 'last'])

    def test_binary_charset_gives_one_character_per_byte_and_read_gives_bytes(self):
        data = bytes([0, 0xFF, 0x80, 0x0A])
        stream = FileStream(data, '/in/b.bin', 'b.bin', 'Binary')
        self.assertEqual(stream.Read(), '\x00\xff\x80\n')
        stream.Rewind()
        self.assertEqual(stream.read(), data)

    def test_unknown_charset_is_refused(self):
        with self.assertRaisesRegex(ValueError, "Charset 'klingon' is not supported"):
            FileStream(b'', '', '', 'klingon')


class FileInboundAdapterTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.inbox = os.path.join(self.root, 'in')

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, folder, name, data):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), 'wb') as f:
            f.write(data)

    def test_hands_each_matching_file_to_the_service_then_deletes_it(self):
        inbound = adapter(FileInboundAdapter, FilePath=self.inbox, FileSpec='*.txt;*.bin')
        inbound.business_host = Recorder()
        self.write(self.inbox, 'b.bin', b'\x00\xff')
        self.write(self.inbox, 'a.txt', b'hello')
        self.write(self.inbox, 'c.csv', b'skip')
        self.write(self.inbox, '.d.txt', b'being written')
        inbound.on_task()
        self.assertEqual(inbound.business_host.received, [
            ('a.txt', os.path.join(self.inbox, 'a.txt'), 5, b'hello'),
            ('b.bin', os.path.join(self.inbox, 'b.bin'), 2, b'\x00\xff'),
        ])
        self.assertEqual(sorted(os.listdir(self.inbox)), ['.d.txt', 'c.csv'])

    def test_archives_and_keeps_a_file_the_service_failed_on(self):
        archive = os.path.join(self.root, 'archive')
        inbound = adapter(FileInboundAdapter, FilePath=self.inbox, ArchivePath=archive)
        inbound.business_host = Recorder(fail_on='b.txt')
        self.write(self.inbox, 'a.txt', b'one')
        self.write(self.inbox, 'b.txt', b'two')
        with self.assertRaisesRegex(RuntimeError, 'the service failed'):
            inbound.on_task()
        self.assertEqual(os.listdir(archive), ['a.txt'])
        self.assertEqual(os.listdir(self.inbox), ['b.txt'])
        inbound.business_host = Recorder()
        inbound.on_task()
        self.assertEqual([r[0] for r in inbound.business_host.received], ['b.txt'])
        self.assertEqual(sorted(os.listdir(archive)), ['a.txt', 'b.txt'])

    def test_work_path_holds_the_file_while_it_is_handled_and_a_crash_leftover_is_handled_first(self):
        work = os.path.join(self.root, 'work')
        inbound = adapter(FileInboundAdapter, FilePath=self.inbox, WorkPath=work)
        seen = []

        class Host:
            def ProcessInput(self, stream):
                seen.append((stream.OriginalFilename, stream.Filename, sorted(os.listdir(work))))

        inbound.business_host = Host()
        self.write(work, 'left.txt', b'interrupted by a crash')
        self.write(self.inbox, 'new.txt', b'new')
        inbound.on_task()
        self.assertEqual(seen, [
            ('left.txt', os.path.join(work, 'left.txt'), ['left.txt']),
            ('new.txt', os.path.join(work, 'new.txt'), ['new.txt']),
        ])
        self.assertEqual(os.listdir(work), [])
        self.assertEqual(os.listdir(self.inbox), [])

    def test_needs_file_path(self):
        with self.assertRaisesRegex(ValueError, 'needs the Adapter setting FilePath'):
            adapter(FileInboundAdapter)


class FileOutboundAdapterTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.out = os.path.join(self.root, 'out')

    def tearDown(self):
        shutil.rmtree(self.root)

    def read(self, name):
        with open(os.path.join(self.out, name), 'rb') as f:
            return f.read()

    def test_writes_replaces_appends_and_manages_files_under_file_path(self):
        files = adapter(FileOutboundAdapter, FilePath=self.out)
        self.assertEqual(files.PutString('a.txt', 'first'), 1)
        files.PutString('a.txt', 'second')
        self.assertEqual(self.read('a.txt'), b'second')
        files.PutLine('log.txt', 'one')
        files.PutLine('log.txt', 'two')
        self.assertEqual(self.read('log.txt'), b'one\ntwo\n')
        files.PutStream('copy.bin', FileStream(b'\x00\x01', '', ''))
        files.PutStream('sub/text.txt', 'é')
        self.assertEqual(self.read('copy.bin'), b'\x00\x01')
        self.assertEqual(self.read('sub/text.txt'), 'é'.encode('utf-8'))
        self.assertTrue(files.Exists('a.txt'))
        self.assertEqual(files.NameList('*.txt'), ['a.txt', 'log.txt'])
        self.assertEqual(files.GetStream('log.txt').ReadLine(), 'one')
        files.Rename('a.txt', 'b.txt')
        files.Delete('log.txt')
        self.assertFalse(files.Exists('a.txt'))
        self.assertEqual(files.NameList(), ['b.txt', 'copy.bin'])
        self.assertEqual([n for n in os.listdir(self.out) if n.startswith('.')], [])

    def test_appends_with_overwrite_off_and_writes_text_in_its_charset(self):
        files = adapter(FileOutboundAdapter, FilePath=self.out, Overwrite='0', Charset='latin1')
        files.PutString('a.txt', 'é')
        files.PutString('a.txt', 'è')
        self.assertEqual(self.read('a.txt'), bytes([0xE9, 0xE8]))

    def test_needs_file_path(self):
        with self.assertRaisesRegex(ValueError, 'needs the Adapter setting FilePath'):
            adapter(FileOutboundAdapter)


class _Handler(BaseHTTPRequestHandler):
    def _answer(self):
        length = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(length) if length else b''
        parsed = urllib.parse.urlsplit(self.path)
        if parsed.path == '/missing':
            payload, status = b'{"error": "no such thing"}', 404
        else:
            payload = json.dumps({
                'method': self.command,
                'path': parsed.path,
                'query': urllib.parse.parse_qs(parsed.query),
                'body': body.decode('latin-1'),
                'contentType': self.headers.get('Content-Type'),
                'authorization': self.headers.get('Authorization'),
            }).encode('utf-8')
            status = 200
        self.send_response(status)
        self.send_header('Content-Type', 'application/json; charset=utf-8')
        self.send_header('X-Served-By', 'test')
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer

    def log_message(self, *args):
        pass


class _Server:
    def __init__(self, context=None):
        self.server = ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        if context is not None:
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class HTTPOutboundAdapterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.http = _Server()

    @classmethod
    def tearDownClass(cls):
        cls.http.close()

    def client(self, **settings):
        return adapter(HTTPOutboundAdapter, **{'HTTPServer': '127.0.0.1', 'HTTPPort': str(self.http.port), **settings})

    def test_get_with_the_url_setting_and_query_parameters(self):
        response = self.client(URL='/api/orders').Get(params={'id': '42'})
        self.assertEqual(response.StatusCode, 200)
        self.assertEqual(response.GetHeader('x-served-by'), 'test')
        self.assertEqual(response.json(), {'method': 'GET', 'path': '/api/orders', 'query': {'id': ['42']}, 'body': '',
                                           'contentType': None, 'authorization': None})
        self.assertIn('"method": "GET"', response.Data.Read())
        self.assertTrue(response.Data.AtEnd)

    def test_post_put_patch_delete_bodies(self):
        client = self.client(URL='/api')
        self.assertEqual(client.Post({'a': 1}).json()['body'], '{"a": 1}')
        self.assertEqual(client.Post({'a': 1}).json()['contentType'], 'application/json')
        self.assertEqual(client.Put('texte é', url='/other').json(), {'method': 'PUT', 'path': '/other', 'query': {},
                                                                     'body': 'texte é'.encode('utf-8').decode('latin-1'),
                                                                     'contentType': 'text/plain; charset=utf-8', 'authorization': None})
        self.assertEqual(client.Patch(b'\x00\xff', content_type='application/x-thing').json()['contentType'], 'application/x-thing')
        self.assertEqual(client.Delete().json()['method'], 'DELETE')

    def test_send_form_data_puts_the_fields_in_the_query_for_get_and_in_a_form_body_for_post(self):
        client = self.client(URL='/form')
        got = client.SendFormData('GET', 'name,age', 'Ada', 36).json()
        self.assertEqual((got['method'], got['query']), ('GET', {'name': ['Ada'], 'age': ['36']}))
        posted = client.SendFormData('POST', 'name,age', 'Ada Lovelace', 36).json()
        self.assertEqual((posted['body'], posted['contentType']), ('name=Ada+Lovelace&age=36', 'application/x-www-form-urlencoded'))
        with_body = client.SendFormData('POST', 'id', 7, 'the body').json()
        self.assertEqual((with_body['query'], with_body['body']), ({'id': ['7']}, 'the body'))
        array = client.SendFormDataArray('POST', 'tag', {'tag': ['a', 'b']}).json()
        self.assertEqual(array['body'], 'tag=a&tag=b')

    def test_a_status_of_400_or_more_raises_with_the_response(self):
        with self.assertRaises(HTTPStatusError) as caught:
            self.client().Get(url='/missing')
        self.assertEqual(caught.exception.response.StatusCode, 404)
        self.assertIn('Received non-OK status 404', str(caught.exception))
        self.assertEqual(caught.exception.response.json(), {'error': 'no such thing'})

    def test_credentials_are_sent_as_basic_authentication(self):
        self.assertEqual(self.client(Credentials='ada:secret').Get().json()['authorization'], 'Basic YWRhOnNlY3JldA==')

    def test_a_whole_url_overrides_the_settings(self):
        response = self.client(HTTPServer='nowhere.invalid').Get(url=f'http://127.0.0.1:{self.http.port}/direct?x=1')
        self.assertEqual(response.json()['query'], {'x': ['1']})

    def test_needs_a_server(self):
        with self.assertRaisesRegex(ValueError, 'needs the Adapter setting HTTPServer'):
            adapter(HTTPOutboundAdapter)

    @unittest.skipUnless(shutil.which('openssl'), 'needs openssl to make a certificate for the local HTTPS server')
    def test_ssl_config_speaks_tls_trusting_the_given_certificate(self):
        folder = tempfile.mkdtemp()
        try:
            cert, key = os.path.join(folder, 'cert.pem'), os.path.join(folder, 'key.pem')
            subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
                            '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], check=True, capture_output=True)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            https = _Server(context)
            try:
                secure = adapter(HTTPOutboundAdapter, HTTPServer='127.0.0.1', HTTPPort=str(https.port), SSLConfig=cert, URL='/tls')
                self.assertEqual(secure.Get().json()['path'], '/tls')
                untrusted = adapter(HTTPOutboundAdapter, HTTPServer='127.0.0.1', HTTPPort=str(https.port), SSLConfig='Default')
                with self.assertRaises(ssl.SSLError):
                    untrusted.Get()
            finally:
                https.close()
        finally:
            shutil.rmtree(folder)


if __name__ == '__main__':
    unittest.main()
