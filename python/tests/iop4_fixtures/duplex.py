"""Duplex components: a service opening a private session, and the process answering it."""
from dataclasses import dataclass

from iop import DuplexProcess, DuplexService, Message

EVENTS = []


@dataclass
class Document(Message):
    text: str = ''


class DocumentService(DuplexService):
    def on_process_input(self, message_input):
        self.send_document_to_process(Document(text=message_input.text))

    def on_private_session_started(self, source_config_name, self_generated):
        EVENTS.append(('service started', self_generated))

    def on_private_session_stopped(self, source_config_name, self_generated, message):
        EVENTS.append(('service stopped', self_generated))


class DocumentProcess(DuplexProcess):
    def on_document(self, source_config_name, request):
        EVENTS.append(('document', source_config_name, request.text))

    def on_private_session_started(self, source_config_name, self_generated):
        EVENTS.append(('process started', source_config_name, self_generated))

    def on_private_session_stopped(self, source_config_name, self_generated, message):
        EVENTS.append(('process stopped', source_config_name, self_generated))
