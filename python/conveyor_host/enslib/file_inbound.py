"""EnsLib.File.InboundAdapter for Python services: every CallInterval (the engine's poll) each file
of FilePath matching FileSpec is handed to the service's `on_process_input` as a FileStream, then
deleted, or moved to ArchivePath.

A file leaves its folder only after `on_process_input` returned, so the messages it sent are
committed: across a crash a file is never lost, at worst handled again (at least once). With
WorkPath the file is moved there first, and a file found there at a poll (a crash interrupted it)
is handled again first. When `on_process_input` raises, the file stays and the next poll retries it."""
import os
import shutil
from datetime import datetime

from iop._components import InboundAdapter

from .file_spec import file_spec_matcher
from .stream import FileStream, python_charset


class FileInboundAdapter(InboundAdapter):
    FilePath: str = ''
    FileSpec: str = '*'
    ArchivePath: str = ''
    WorkPath: str = ''
    Charset: str = 'UTF-8'

    def on_init(self):
        if not self.FilePath:
            raise ValueError('EnsLib.File.InboundAdapter needs the Adapter setting FilePath')
        python_charset(self.Charset)  # an unknown Charset stops the start, naming it
        for folder in (self.FilePath, self.ArchivePath, self.WorkPath):
            if folder:
                os.makedirs(folder, exist_ok=True)
        self._matches = file_spec_matcher(self.FileSpec)

    def on_task(self):
        if self.WorkPath:
            for name in self._files(self.WorkPath):
                self._handle(os.path.join(self.WorkPath, name), name)
        for name in self._files(self.FilePath):
            path = os.path.join(self.FilePath, name)
            if self.WorkPath:
                working = os.path.join(self.WorkPath, name)
                _move(path, working)
                path = working
            self._handle(path, name)
        return None

    def _files(self, folder):
        names = []
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_file() and not entry.name.startswith('.') and self._matches(entry.name):
                    names.append(entry.name)
        return sorted(names)

    def _handle(self, path, name):
        with open(path, 'rb') as source:
            data = source.read()
        stream = FileStream(data, path, name, self.Charset)
        self.business_host.ProcessInput(stream)
        if self.ArchivePath:
            _move(path, _free_name(self.ArchivePath, name))
        else:
            os.unlink(path)


def _move(source, target):
    try:
        os.replace(source, target)
    except OSError:
        # Another file system: the copy is complete before the original goes.
        shutil.copyfile(source, target)
        os.unlink(source)


def _free_name(folder, name):
    """The name in the folder, or with IRIS's `_%Q` time stamp appended when a file already has it."""
    plain = os.path.join(folder, name)
    if not os.path.exists(plain):
        return plain
    return os.path.join(folder, name + '_' + datetime.now().strftime('%Y-%m-%d_%H.%M.%S.%f')[:-3])
