"""The worker's side of the frame channel to the Conveyor engine.

A frame is a 4-byte big-endian length of the rest, a 4-byte length of the head, the head (UTF-8
JSON), then the frame's long strings as raw UTF-8 back to back (src/bridge/frames.ts says why and
how the head names their places). The engine writes on fd 3 and reads fd 4, so stdout and stderr
stay free for whatever user code prints.

No thread sits between the pipe and the code that waits for a frame: whichever thread waits (the
main loop for its next request, user code blocked in `send_request_sync` for its answer) reads the
pipe itself, one reader at a time, and files what it reads for the others (answers to their
requests, requests for the main loop). A frame thus costs one read and no thread hand-off; a
reader thread per frame cost two thread wake-ups and a GIL hand-off. A watcher thread blocked in
poll() (woken only by the engine's end, never by data) reports a closed connection while user
code runs and nobody reads.

A long string the engine carried in one of its requests, handed back unchanged while that request
is not answered yet (a component passing its request on, or returning it), is named instead of sent
again (an echo, src/bridge/frames.ts): the string is recognised by identity, the very object the
frame was decoded into, which a received message that was never touched still holds.
"""
import collections
import os
import queue
import select
import struct
import threading
from json.encoder import encode_basestring as _quote

from iop._json import compact_json_encoder, loads

PROTOCOL_VERSION = 4
_HEADER = struct.Struct('>I')
_HEADERS = struct.Struct('>II')
# The engine's rule (frames.ts): strings this long, at most four levels down, travel after the head.
_CARRIED_MIN_CHARS = 1024
_CARRIED_MAX_DEPTH = 4
_READ_SIZE = 1 << 16
# The engine's end of the pipe closing; data arriving does not wake the watcher.
_HANG_UP = getattr(select, 'POLLRDHUP', 0) | select.POLLHUP | select.POLLERR
_encode = compact_json_encoder(ensure_ascii=False, allow_nan=True)
_encode_ascii = compact_json_encoder(ensure_ascii=True, allow_nan=True)
_LOST = {'t': 'failure', 'failure': {'code': 'ERR_BRIDGE', 'message': 'the Conveyor engine closed the connection'}}
_ANSWERS = ('result', 'failure')


class EngineError(RuntimeError):
    """The engine refused or failed an operation this worker asked for. `code` is the engine's
    error code (ERR_TIMEOUT, ERR_ITEM_NOT_FOUND, ...), so user code can tell the kinds apart."""

    def __init__(self, message, code='ERR_INTERNAL'):
        super().__init__(message)
        self.code = code


class _Pending:
    __slots__ = ('frame', 'callback')

    def __init__(self, callback=None):
        self.frame = None
        self.callback = callback


class _Inbox:
    """The engine's requests to this worker, in order; `get` reads the pipe while none is filed."""

    def __init__(self, channel):
        # `get(timeout=None)`: the next frame, None once the engine closed the connection;
        # queue.Empty after `timeout` seconds. The channel's own method, not a method calling it:
        # the main loop asks once per request.
        self.get = channel.next_request


class Channel:
    def __init__(self, read_fd=3, write_fd=4, on_close=None):
        self._on_close = on_close
        self._read_fd = read_fd
        self._writer = open(write_fd, 'wb', buffering=1 << 16, closefd=False)
        self._write_lock = threading.Lock()
        # Guards the fields below, taken bare where nobody needs waking (Condition's own enter and
        # exit are Python code, run several times per frame); waiters sleep on `_state` while
        # another thread reads, and `_sleepers` counts them so that filing wakes nobody in vain.
        self._lock = threading.Lock()
        self._state = threading.Condition(self._lock)
        self._sleepers = 0
        self._pending = {}
        self._next_id = 0
        self._requests = collections.deque()
        self._reading = False
        self._buffer = bytearray()
        # The carried strings of the engine's requests not answered yet, which frames may echo:
        # id(string) -> (request id, slot index, string), and request id -> its strings' ids. Guarded
        # by the write lock, so that no frame echoes a string after the answer that released it.
        self._echoable = {}
        self._echo_requests = {}
        self._carried = []  # filled by _decode, emptied by _remember
        self._close_reported = False
        self.inbox = _Inbox(self)
        self.closed = False

    def start(self):
        """Starts the watcher that reports the engine's end while nobody reads."""
        thread = threading.Thread(target=self._watch_hang_up, name='conveyor-watcher', daemon=True)
        thread.start()

    def send(self, frame):
        # The result and op frames of every round trip are written from a template (see
        # _hot_frame_json): small, no string to carry, the encoder's very text.
        text = _hot_frame_json(frame)
        if text is not None:
            try:
                payload = text.encode('utf-8')
            except UnicodeEncodeError:
                pass  # a lone surrogate: the general way below escapes it
            else:
                with self._write_lock:
                    self._write(payload, (), frame)
                return
        # Only a frame holding a string long enough to be carried is walked and copied for it (every
        # frame of the hot path is small); encoding first to find out would escape a large body
        # into JSON only to throw it away.
        if not _holds_long_string(frame, 0):
            payload = _payload(frame)
            with self._write_lock:
                self._write(payload, (), frame)
            return
        with self._write_lock:  # what may be echoed cannot change until the frame is written
            slots = []
            strings = []
            echoes = []
            lifted = _lift(frame, [], slots, strings, echoes, self._echoable)
            head = frame
            if echoes:
                head = [lifted, slots, echoes]
            elif slots:
                head = [lifted, slots]
            self._write(_payload(head), strings, frame)

    def _write(self, payload, strings, frame):
        """One frame: its head's UTF-8 `payload`, then the carried `strings` (bytes). The write lock is held."""
        if not strings:
            # A small frame: one write of its head and header together (copying a small payload
            # costs less than a second call into the buffered writer).
            self._writer.write(_HEADERS.pack(4 + len(payload), len(payload)) + payload)
        else:
            size = 4 + len(payload)
            for part in strings:
                size += len(part)
            self._writer.write(_HEADERS.pack(size, len(payload)))
            self._writer.write(payload)
            for part in strings:
                self._writer.write(part)
        self._writer.flush()
        if self._echo_requests and frame['t'] in _ANSWERS:
            # The engine lets go of the request's strings once it read this answer.
            for key in self._echo_requests.pop(frame['id'], ()):
                del self._echoable[key]

    def _remember(self, frame):
        """Makes the strings carried in `frame` (in `self._carried`) echoable while it is an unanswered request."""
        carried = self._carried
        if type(frame) is dict and frame.get('t') not in _ANSWERS and 'id' in frame:
            request_id = frame['id']
            with self._write_lock:
                self._echo_requests[request_id] = [id(text) for text in carried]
                for slot, text in enumerate(carried):
                    self._echoable[id(text)] = (request_id, slot, text)
        carried.clear()

    def request(self, frame):
        """Sends an `op` frame and blocks until the engine answers it. Returns the result value."""
        pending = _Pending()
        with self._lock:  # _register(None), inline: user code sends on every request it handles
            if self.closed:
                raise EngineError('the connection to the Conveyor engine is closed')
            self._next_id += 1
            frame['id'] = frame_id = self._next_id
            self._pending[frame_id] = pending
        self.send(frame)
        self._pump(pending)
        answer = pending.frame
        if answer['t'] == 'result':
            return answer['value']
        raise _engine_error(answer)

    def request_async(self, frame, callback):
        """Sends an `op` frame; `callback(ok, value_or_engine_error)` runs on the thread that reads
        its answer (a helper thread reads until it came, as the caller does not wait)."""
        pending, frame_id = self._register(callback)
        frame['id'] = frame_id
        self.send(frame)
        helper = threading.Thread(target=self._pump, args=(pending,), name='conveyor-async-answer', daemon=True)
        helper.start()

    def next_request(self, timeout=None):
        """The next frame that is not an answer (None at the end); raises queue.Empty after `timeout` seconds."""
        if not self._pump(None, timeout):
            raise queue.Empty
        return self._requests.popleft()

    def _register(self, callback):
        pending = _Pending(callback)
        with self._lock:
            if self.closed:
                raise EngineError('the connection to the Conveyor engine is closed')
            self._next_id += 1
            frame_id = self._next_id
            self._pending[frame_id] = pending
        return pending, frame_id

    # --- reading ----------------------------------------------------------------------------------
    def _pump(self, pending, timeout=None):
        """Returns once `pending` (a `_Pending`) is answered, or for None once a request of the
        engine is filed (True), or when `timeout` seconds passed (False). Reads the pipe itself
        unless another thread is reading, in which case it sleeps until that one files something
        or hands the reading over. What is waited for is named by `pending`, not by a predicate
        closure: one was built for every request."""
        requests = self._requests
        with self._lock:
            while not _ready(pending, requests):
                if not self._reading:
                    self._reading = True
                    break
                self._sleepers += 1
                try:
                    woken = self._state.wait(timeout)
                finally:
                    self._sleepers -= 1
                if not woken and timeout is not None:
                    return _ready(pending, requests)
            else:
                return True
        try:
            while True:
                frame = self._read_frame(timeout)
                if frame is None:
                    # timed out, or the connection ended (then everything is settled)
                    return _ready(pending, requests)
                self._file(frame)
                if _ready(pending, requests):
                    return True
        finally:
            with self._lock:
                self._reading = False
                if self._sleepers:
                    self._state.notify_all()

    def _read_frame(self, timeout):
        """One frame from the pipe, or None (timeout, or the end: then every waiter is released)."""
        buffer = self._buffer
        while True:
            available = len(buffer)
            if available >= 4:
                (size,) = _HEADER.unpack_from(buffer, 0)
                end = 4 + size
                if available >= end:
                    frame = _decode(buffer, end, self._carried)
                    del buffer[:end]
                    if self._carried:
                        self._remember(frame)
                    return frame
                wanted = end - available
            else:
                wanted = 4 - available
            if timeout is not None and not select.select([self._read_fd], [], [], timeout)[0]:
                return None
            try:
                chunk = os.read(self._read_fd, max(wanted, _READ_SIZE))
            except OSError:
                chunk = b''
            if not chunk:
                self._end()
                return None
            buffer += chunk

    def _file(self, frame):
        """Settles the request an answer belongs to, or files a request of the engine."""
        kind = frame.get('t')
        if kind not in ('result', 'failure'):
            with self._lock:
                self._requests.append(frame)
                if self._sleepers:
                    self._state.notify_all()
            return
        with self._lock:
            pending = self._pending.pop(frame.get('id'), None)
            if pending is None:
                return
            pending.frame = frame
            if self._sleepers:
                self._state.notify_all()
        if pending.callback is not None:
            if kind == 'result':
                pending.callback(True, frame['value'])
            else:
                pending.callback(False, _engine_error(frame))

    def _end(self):
        """The engine closed the connection: every waiting request fails, the inbox ends."""
        with self._lock:
            self.closed = True
            waiting = list(self._pending.values())
            self._pending.clear()
            for pending in waiting:
                pending.frame = _LOST
            self._requests.append(None)
            self._state.notify_all()
        for pending in waiting:
            if pending.callback is not None:
                pending.callback(False, _engine_error(_LOST))
        self._report_close()

    def _report_close(self):
        with self._lock:
            if self._close_reported:
                return
            self._close_reported = True
        if self._on_close is not None:
            self._on_close()

    def _watch_hang_up(self):
        poller = select.poll()
        poller.register(self._read_fd, _HANG_UP)
        while True:
            try:
                events = poller.poll()
            except OSError:
                return
            if any(event & _HANG_UP for _, event in events):
                self._report_close()
                return


# --- the two frames of every round trip, written directly ----------------------------------------
# The C JSON encoder costs about 2,000 instructions per member of a small frame (it lists each dict's
# items, parses its arguments, accumulates chunks), more than the rest of sending it: the op frame of
# send_request_sync and the result frame answering a request cost ~25,000 each in a process worker
# (docs/benchmarks.md, issue 16, fourth session). Those two shapes, with the value types our own code
# puts in them, are written from a template instead; anything else (another key order, another type,
# a string long enough to be carried) goes through the encoder. The text is `_encode(frame)`'s to the
# byte: the same escaping function, exact ints only (their repr is what the encoder writes).
_RESULT_KEYS = ('t', 'id', 'value')
_OP_KEYS = ('t', 'op', 'call', 'target', 'body', 'timeoutMs', 'description', 'id')
_BODY_KEYS = ('classname', 'encoding', 'data')


def _short_string_json(value):
    """A str's JSON if it is an exact str too short to be carried, else None."""
    if type(value) is str and len(value) < _CARRIED_MIN_CHARS:
        return _quote(value)
    return None


def _body_json(body):
    """The JSON of a message body as serialize() builds it ({classname, encoding, data}, exact strs,
    none long enough to be carried), else None."""
    if type(body) is not dict or tuple(body) != _BODY_KEYS:
        return None
    classname = _short_string_json(body['classname'])
    encoding = _short_string_json(body['encoding'])
    data = _short_string_json(body['data'])
    if classname is None or encoding is None or data is None:
        return None
    return f'{{"classname":{classname},"encoding":{encoding},"data":{data}}}'


def _hot_frame_json(frame):
    """`_encode(frame)` for a result frame carrying a message body or a send_sync-shaped op frame;
    None for any other frame."""
    if type(frame) is not dict:
        return None
    keys = tuple(frame)
    if keys == _RESULT_KEYS:
        frame_id = frame['id']
        if frame['t'] != 'result' or type(frame_id) is not int:
            return None
        body = _body_json(frame['value'])
        if body is None:
            return None
        return f'{{"t":"result","id":{frame_id},"value":{body}}}'
    if keys == _OP_KEYS:
        call, timeout, frame_id = frame['call'], frame['timeoutMs'], frame['id']
        if frame['t'] != 'op' or type(timeout) is not int or type(frame_id) is not int or (call is not None and type(call) is not int):
            return None
        op = _short_string_json(frame['op'])
        target = _short_string_json(frame['target'])
        description = _short_string_json(frame['description'])
        body = _body_json(frame['body'])
        if op is None or target is None or description is None or body is None:
            return None
        call = 'null' if call is None else call
        return f'{{"t":"op","op":{op},"call":{call},"target":{target},"body":{body},"timeoutMs":{timeout},"description":{description},"id":{frame_id}}}'
    return None


def _ready(pending, requests):
    """What `_pump` waits for: `pending` answered, or for None a request of the engine filed."""
    return pending.frame is not None if pending is not None else len(requests) > 0


def _holds_long_string(value, depth):
    """Whether `_lift` would find a string to carry in `value` (a container `depth` levels down)."""
    if depth == _CARRIED_MAX_DEPTH:
        return False
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, (list, tuple)):
        return False
    for item in value:
        kind = type(item)
        # Frames are mostly short strings, numbers and None; like `_lift`, only exact strings are carried.
        if kind is str:
            if len(item) >= _CARRIED_MIN_CHARS:
                return True
        elif kind is not int and item is not None and isinstance(item, (dict, list, tuple)) and _holds_long_string(item, depth + 1):
            return True
    return False


def _lift(value, path, slots, strings, echoes, echoable):
    """`value` with its long strings replaced by 0, each recorded as a slot `[byte length, *path]`
    and its UTF-8 in `strings`, or, when it is one of `echoable`'s strings itself, as an echo
    `[request id, slot index, *path]`; containers on the way to one are copied, never changed (they
    may be user objects). `path` is a stack shared by the walk."""
    if isinstance(value, str):
        if len(value) < _CARRIED_MIN_CHARS or not path:
            return value
        if echoable:
            known = echoable.get(id(value))
            if known is not None and known[2] is value:
                echoes.append([known[0], known[1], *path])
                return 0
        try:
            data = value.encode('utf-8')
        except UnicodeEncodeError:
            return value  # a lone surrogate: stays in the head, which escapes it
        slots.append([len(data), *path])
        strings.append(data)
        return 0
    if len(path) == _CARRIED_MAX_DEPTH:
        return value
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return value
    copy = None
    for key, item in items:
        # Most members of a frame are short strings, numbers or None: no call for those.
        if type(item) is str:
            if len(item) < _CARRIED_MIN_CHARS:
                continue
        elif not isinstance(item, (dict, list, tuple)):
            continue
        path.append(key)
        lifted = _lift(item, path, slots, strings, echoes, echoable)
        path.pop()
        if lifted is not item:
            if copy is None:
                copy = dict(value) if isinstance(value, dict) else list(value)
            copy[key] = lifted
    return value if copy is None else copy


def _payload(head):
    """A frame's head as UTF-8 JSON."""
    try:
        return _encode(head).encode('utf-8')
    except UnicodeEncodeError:
        # Lone surrogates (from undecodable file names, say) cannot be UTF-8: escape them.
        return _encode_ascii(head).encode('ascii')


def _decode(buffer, end, carried):
    """The frame in buffer[4:end]: its head, with the carried strings put back where it says (and
    appended to `carried`, in slot order)."""
    (head_size,) = _HEADER.unpack_from(buffer, 4)
    head_end = 8 + head_size
    if head_end > end:
        raise ValueError('a frame whose head overruns it: the stream is corrupt')
    head = loads(buffer[8:head_end].decode('utf-8', 'surrogatepass'))
    if head_end == end:
        return head
    frame, slots = head
    carried.clear()  # what a frame that failed to decode left
    with memoryview(buffer) as view:  # released before the caller trims the buffer
        at = head_end
        for slot in slots:
            size = slot[0]
            parent = frame
            for key in slot[1:-1]:
                parent = parent[key]
            text = parent[slot[-1]] = str(view[at:at + size], 'utf-8')
            carried.append(text)
            at += size
    if at != end:
        raise ValueError('a frame whose strings do not fill it: the stream is corrupt')
    return frame


def _engine_error(frame):
    """The engine's side of the failure converter, read back: its code and text."""
    failure = frame['failure']
    return EngineError(failure['message'], failure['code'])
