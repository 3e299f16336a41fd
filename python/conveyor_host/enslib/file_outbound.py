"""EnsLib.File.OutboundAdapter for Python operations (`self.adapter`): writes and reads files under
FilePath. Methods keep IRIS's names; IRIS's output arguments become return values (Exists returns
the boolean, GetStream the stream, NameList the list). `Overwrite` (default true) replaces a file
PutString and PutStream write, else they append; PutLine always appends one line (with
LineTerminator, default `\\n`). Text is written in Charset (default UTF-8); bytes as they are."""
import os
import tempfile

from iop._components import OutboundAdapter

from .file_spec import file_spec_matcher
from .stream import FileStream, python_charset

OK = 1  # IRIS's $$$OK, what IRIS's adapter methods return


def _flag(value):
    if isinstance(value, str):
        return value.strip().lower() not in ('0', 'false', '')
    return bool(value)


class FileOutboundAdapter(OutboundAdapter):
    FilePath: str = ''
    Overwrite: str = '1'
    Charset: str = 'UTF-8'
    LineTerminator: str = '\n'

    def on_init(self):
        if not self.FilePath:
            raise ValueError('EnsLib.File.OutboundAdapter needs the Adapter setting FilePath')
        self._codec = python_charset(self.Charset)
        os.makedirs(self.FilePath, exist_ok=True)

    # --- writing ----------------------------------------------------------------------------
    def PutString(self, filename, data):
        self._write(filename, self._bytes(data), append=not _flag(self.Overwrite))
        return OK

    def PutStream(self, filename, stream):
        self._write(filename, self._stream_bytes(stream), append=not _flag(self.Overwrite))
        return OK

    def PutLine(self, filename, line):
        self._write(filename, self._bytes(line) + self._bytes(self.LineTerminator), append=True)
        return OK

    # --- reading and managing ---------------------------------------------------------------
    def Exists(self, filename):
        return os.path.exists(self._path(filename))

    def Delete(self, filename):
        os.unlink(self._path(filename))
        return OK

    def GetStream(self, filename):
        path = self._path(filename)
        with open(path, 'rb') as source:
            return FileStream(source.read(), path, os.path.basename(path), self.Charset)

    def NameList(self, wildcards='*', include_dirs=False):
        matches = file_spec_matcher(wildcards)
        names = []
        with os.scandir(self.FilePath) as entries:
            for entry in entries:
                if (entry.is_file() or (include_dirs and entry.is_dir())) and matches(entry.name):
                    names.append(entry.name)
        return sorted(names)

    def Rename(self, filename, new_filename, new_path=''):
        os.replace(self._path(filename), os.path.join(new_path or self.FilePath, new_filename))
        return OK

    # --- helpers ----------------------------------------------------------------------------
    def _path(self, filename):
        return os.path.join(self.FilePath, str(filename))

    def _bytes(self, data):
        if data is None:
            return b''
        if isinstance(data, (bytes, bytearray)):
            return bytes(data)
        return str(data).encode(self._codec)

    def _stream_bytes(self, stream):
        if isinstance(stream, FileStream):
            return stream.getvalue()
        if isinstance(stream, (str, bytes, bytearray)) or stream is None:
            return self._bytes(stream)
        if hasattr(stream, 'read'):
            return self._bytes(stream.read())
        if hasattr(stream, 'Read'):
            if hasattr(stream, 'Rewind'):
                stream.Rewind()
            chunks = []
            while not getattr(stream, 'AtEnd', True):
                chunks.append(self._bytes(stream.Read(32000)))
            return b''.join(chunks)
        raise TypeError(f'PutStream needs a stream, bytes or text, not {type(stream).__name__}')

    def _write(self, filename, data, append):
        path = self._path(filename)
        os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
        if append:
            with open(path, 'ab') as target:
                target.write(data)
            return
        # A reader never sees half a file: written beside it, then renamed over it.
        handle, temporary = tempfile.mkstemp(prefix=f'.{os.path.basename(path)}.', dir=os.path.dirname(path) or '.')
        try:
            with os.fdopen(handle, 'wb') as target:
                target.write(data)
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
