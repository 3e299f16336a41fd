"""A read-only stream with IRIS's %Stream methods over the bytes of one file: what an
EnsLib.File.InboundAdapter hands to `on_process_input`.

Text methods (Read, ReadLine) decode with the adapter's Charset: UTF-8 by default; `Binary`,
`latin1` and `iso-8859-1` give one character per byte, as IRIS binary streams do. `read()` and
`ReadBytes()` give the bytes themselves."""
import codecs

_BINARY = {'binary', 'latin1', 'latin-1', 'iso-8859-1', 'raw', 'rawbytes'}


def python_charset(charset):
    """The Python codec of an IRIS Charset setting."""
    name = (charset or '').strip().lower().lstrip('*')
    if name in ('', 'native', 'default', 'utf-8', 'utf8'):
        return 'utf-8'
    if name in _BINARY:
        return 'latin-1'
    if name in ('unicode', 'utf-16', 'utf-16le'):
        return 'utf-16-le'
    if name in ('unicodebig', 'utf-16be'):
        return 'utf-16-be'
    if name == 'ascii':
        return 'ascii'
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise ValueError(f'Charset {charset!r} is not supported') from None


class FileStream:
    """`Filename` is the path the file was read from; `OriginalFilename` its name alone."""

    def __init__(self, data, filename, original_filename, charset='UTF-8', line_terminator='\n'):
        self._data = bytes(data)
        self._position = 0
        self._codec = python_charset(charset)
        self.Filename = filename
        self.OriginalFilename = original_filename
        self.Attributes = {'Filename': filename, 'OriginalFilename': original_filename}
        self.LineTerminator = line_terminator

    # --- IRIS's names -----------------------------------------------------------------------
    @property
    def Size(self):
        return len(self._data)

    @property
    def AtEnd(self):
        return self._position >= len(self._data)

    def Read(self, length=32000):
        """Up to `length` characters (bytes for a one-byte charset) from the current position."""
        chunk = self._take(length)
        return chunk.decode(self._codec, errors='replace')

    def ReadLine(self, length=32000):
        """The next line without its terminator (`\\n`, or `\\r\\n`), at most `length` characters."""
        end = self._data.find(b'\n', self._position)
        stop = len(self._data) if end < 0 else end
        stop = min(stop, self._position + max(0, int(length)))
        line = self._data[self._position:stop]
        self._position = stop + 1 if end == stop else stop
        if line.endswith(b'\r'):
            line = line[:-1]
        return line.decode(self._codec, errors='replace')

    def ReadBytes(self, length=32000):
        return self._take(length)

    def Rewind(self):
        self._position = 0
        return 1

    def MoveToEnd(self):
        self._position = len(self._data)
        return 1

    # --- Python's names ---------------------------------------------------------------------
    def read(self, size=-1):
        """Bytes, as a binary file object gives them."""
        return self._take(len(self._data) if size is None or size < 0 else size)

    def readline(self):
        end = self._data.find(b'\n', self._position)
        stop = len(self._data) if end < 0 else end + 1
        line = self._data[self._position:stop]
        self._position = stop
        return line

    def getvalue(self):
        return self._data

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        while not self.AtEnd:
            yield self.ReadLine()

    def _take(self, length):
        count = max(0, int(length))
        chunk = self._data[self._position:self._position + count]
        self._position += len(chunk)
        return chunk

    def __repr__(self):
        return f'<FileStream {self.OriginalFilename!r} {len(self._data)} bytes>'
