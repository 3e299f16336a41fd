"""Duplex components: a service opening a private session, and the process answering it."""
from dataclasses import dataclass

from iop import DuplexOperation, DuplexProcess, DuplexService, Message, PollingBusinessService

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


class PolledDuplexOperation(DuplexOperation):
    """The inbound side of a duplex operation: each poll (no input) sends one document into its session."""

    get_adapter_type = PollingBusinessService.get_adapter_type

    def on_init(self):
        self.polls = 0

    def on_process_input(self):
        self.polls += 1
        self.send_document_to_process(Document(text=f'poll {self.polls}'))

    def on_message(self, request):
        EVENTS.append(('operation message', request.text))
