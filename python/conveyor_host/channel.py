"""The worker's side of the frame channel to the Conveyor engine.

Frames are a 4-byte big-endian length followed by UTF-8 JSON. The engine writes on fd 3 and reads
fd 4, so stdout and stderr stay free for whatever user code prints. A reader thread owns fd 3: it
resolves the answers to requests this worker made (so the main thread can block in
`send_request_sync` while frames keep flowing) and queues everything else for the main thread.
"""
import json
import queue
import struct
import threading

PROTOCOL_VERSION = 2
_HEADER = struct.Struct('>I')


class EngineError(RuntimeError):
    """The engine refused or failed an operation this worker asked for. `code` is the engine's
    error code (ERR_TIMEOUT, ERR_ITEM_NOT_FOUND, ...), so user code can tell the kinds apart."""

    def __init__(self, message, code='ERR_INTERNAL'):
        super().__init__(message)
        self.code = code


class _Pending:
    __slots__ = ('event', 'frame', 'callback')

    def __init__(self, callback=None):
        self.event = threading.Event()
        self.frame = None
        self.callback = callback


class Channel:
    def __init__(self, read_fd=3, write_fd=4, on_close=None):
        self._on_close = on_close
        self._reader = open(read_fd, 'rb', buffering=1 << 16, closefd=False)
        self._writer = open(write_fd, 'wb', buffering=1 << 16, closefd=False)
        self._write_lock = threading.Lock()
        self._pending = {}
        self._pending_lock = threading.Lock()
        self._next_id = 0
        self.inbox = queue.Queue()
        self.closed = False

    def start(self):
        thread = threading.Thread(target=self._read_loop, name='conveyor-reader', daemon=True)
        thread.start()

    def send(self, frame):
        text = json.dumps(frame, ensure_ascii=False, separators=(',', ':'))
        try:
            payload = text.encode('utf-8')
        except UnicodeEncodeError:
            # Lone surrogates (from undecodable file names, say) cannot be UTF-8: escape them.
            payload = json.dumps(frame, separators=(',', ':')).encode('ascii')
        with self._write_lock:
            self._writer.write(_HEADER.pack(len(payload)))
            self._writer.write(payload)
            self._writer.flush()

    def request(self, frame):
        """Sends an `op` frame and blocks until the engine answers it. Returns the result value."""
        pending, frame_id = self._register(None)
        frame['id'] = frame_id
        self.send(frame)
        pending.event.wait()
        return _value_of(pending.frame)

    def request_async(self, frame, callback):
        """Sends an `op` frame; `callback(ok, value_or_engine_error)` runs on the reader thread."""
        _, frame_id = self._register(callback)
        frame['id'] = frame_id
        self.send(frame)

    def _register(self, callback):
        pending = _Pending(callback)
        with self._pending_lock:
            if self.closed:
                raise EngineError('the connection to the Conveyor engine is closed')
            self._next_id += 1
            frame_id = self._next_id
            self._pending[frame_id] = pending
        return pending, frame_id

    def _read_exact(self, size):
        data = self._reader.read(size)
        if data is None or len(data) < size:
            return None
        return data

    def _read_loop(self):
        try:
            while True:
                header = self._read_exact(4)
                if header is None:
                    break
                (size,) = _HEADER.unpack(header)
                payload = self._read_exact(size)
                if payload is None:
                    break
                frame = json.loads(payload.decode('utf-8'))
                if frame.get('t') in ('result', 'failure'):
                    self._resolve(frame)
                else:
                    self.inbox.put(frame)
        finally:
            self._close_pending()
            self.inbox.put(None)
            if self._on_close is not None:
                self._on_close()

    def _resolve(self, frame):
        with self._pending_lock:
            pending = self._pending.pop(frame.get('id'), None)
        if pending is None:
            return
        pending.frame = frame
        if pending.callback is not None:
            if frame['t'] == 'result':
                pending.callback(True, frame['value'])
            else:
                pending.callback(False, _engine_error(frame))
        pending.event.set()

    def _close_pending(self):
        with self._pending_lock:
            self.closed = True
            waiting = list(self._pending.values())
            self._pending.clear()
        lost = {'t': 'failure', 'failure': {'code': 'ERR_BRIDGE', 'message': 'the Conveyor engine closed the connection'}}
        for pending in waiting:
            pending.frame = lost
            if pending.callback is not None:
                pending.callback(False, _engine_error(lost))
            pending.event.set()


def _engine_error(frame):
    """The engine's side of the failure converter, read back: its code and text."""
    failure = frame['failure']
    return EngineError(failure['message'], failure['code'])


def _value_of(frame):
    if frame['t'] == 'result':
        return frame['value']
    raise _engine_error(frame)

