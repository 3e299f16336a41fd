import json
import unittest
import warnings

import iris
from iop import BusinessOperation, BusinessService, PollingBusinessService, handler
from iop._dispatch import dispatch_table, find_handler
from iop._components import adapter_type_of

from tests.iop4_fixtures import duplex
from tests.iop4_fixtures.components import Order, OrderOperation, Receipt
from tests.sample_messages import SimpleMessage
from tests.worker_host_case import WorkerHostCase


class HandlerDispatchTest(unittest.TestCase):
    def test_a_handler_method_receives_its_message_type(self):
        operation = OrderOperation.__new__(OrderOperation)
        operation.Factor = 3
        reply = find_handler(operation, Order(order_id='o', quantity=2))(Order(order_id='o', quantity=2))
        self.assertEqual(reply, Receipt(text='o x6'))

    def test_handler_beats_dispatch_and_typed_methods_and_typed_beats_dispatch(self):
        class Mixed(BusinessOperation):
            DISPATCH = [('tests.sample_messages.SimpleMessage', 'declared'), ('iris.Ens.StringRequest', 'declared')]

            @handler('tests.sample_messages.SimpleMessage')
            def z_handler(self, request):
                return 'handler'

            def typed(self, request: SimpleMessage):
                return 'typed'

            def declared(self, request):
                return 'declared'

            def native(self, request: iris.Ens.StringRequest):
                return 'typed native'

        mixed = Mixed.__new__(Mixed)
        self.assertEqual(find_handler(mixed, SimpleMessage())(None), 'handler')
        self.assertEqual(find_handler(mixed, iris.cls('Ens.StringRequest')._New('x'))(None), 'typed native')

    def test_handler_accepts_iris_names_and_refuses_other_values(self):
        class Native(BusinessOperation):
            @handler('iris.Ens.StringRequest')
            def on_string(self, request):
                return request.StringValue

        self.assertEqual(find_handler(Native.__new__(Native), iris.cls('Ens.StringRequest')._New('v'))(iris.cls('Ens.StringRequest')._New('v')), 'v')
        with self.assertRaises(TypeError):
            handler(42)

    def test_str_and_object_annotations_are_not_handlers(self):
        class Plain(BusinessOperation):
            def text(self, request: str):
                return 'no'

            def anything(self, request: object):
                return 'no'

        self.assertEqual(dispatch_table(Plain), [])


class ServiceTest(unittest.TestCase):
    def test_polling_service_polls_through_on_poll(self):
        calls = []

        class Poller(PollingBusinessService):
            def on_poll(self):
                calls.append('poll')
                return 'polled'

        poller = Poller.__new__(Poller)
        self.assertEqual(Poller.get_adapter_type(), 'Ens.InboundAdapter')
        self.assertEqual(poller.on_process_input(None), 'polled')
        self.assertEqual(calls, ['poll'])

    def test_unoverridden_poll_warns_and_returns_none(self):
        class Idle(PollingBusinessService):
            pass

        with self.assertWarns(RuntimeWarning):
            self.assertIsNone(Idle.__new__(Idle).on_process_input(None))

    def test_process_input_delegates_to_on_message_and_takes_no_argument_overrides(self):
        class Forwarding(BusinessService):
            def on_message(self, request):
                return ('message', request)

        class NoArgument(BusinessService):
            def on_process_input(self):
                return 'called without argument'

        self.assertEqual(Forwarding.__new__(Forwarding).on_process_input('x'), ('message', 'x'))
        self.assertEqual(NoArgument.__new__(NoArgument).on_process_input(None), 'called without argument')

    def test_legacy_on_process_input_override_still_wins(self):
        class Legacy(BusinessService):
            def OnProcessInput(self, message_input):
                return 'legacy'

        with warnings.catch_warnings():
            warnings.simplefilter('error')
            self.assertEqual(Legacy.__new__(Legacy).on_process_input(None), 'legacy')


class DuplexSessionTest(WorkerHostCase):
    """Private sessions through a real worker host: the frames the engine receives, and the process hooks."""

    def setUp(self):
        duplex.EVENTS.clear()
        super().setUp()

    def init(self, class_name, host_settings):
        self.engine.write({'t': 'init', 'id': 1, 'module': 'tests.iop4_fixtures.duplex', 'className': class_name, 'classpaths': [],
                           'configName': class_name, 'settings': {'host': host_settings, 'adapter': {}}})
        self.assertEqual(self.engine.read()['t'], 'result')

    def answer_ops(self, count):
        ops = []
        for _ in range(count):
            frame = self.engine.read()
            self.assertEqual(frame['t'], 'op', frame)
            ops.append(frame)
            self.engine.write({'t': 'result', 'id': frame['id'], 'value': None})
        return ops

    def test_a_document_opens_the_session_once_and_teardown_stops_it(self):
        self.init('DocumentService', {'DuplexTargetConfigName': 'DocumentProcess'})
        for text in ('one', 'two'):
            body = {'classname': 'tests.iop4_fixtures.duplex.Document', 'encoding': 'json', 'data': json.dumps({'text': text})}
            self.engine.write({'t': 'invoke', 'id': 2, 'hook': 'process_input', 'call': 5, 'args': {'input': body}})
            ops = self.answer_ops(2 if text == 'one' else 1)
            self.assertEqual(self.engine.read()['t'], 'result')
            if text == 'one':
                self.assertEqual([op['body']['classname'] for op in ops], ['IOP.PrivateSession.Message.Start', 'IOP.PrivateSession.Message.Document'])
        self.assertTrue(all(op['target'] == 'DocumentProcess' for op in ops))
        self.engine.write({'t': 'teardown', 'id': 3})
        stop = self.answer_ops(1)[0]
        self.assertEqual(stop['body']['classname'], 'IOP.PrivateSession.Message.Stop')
        self.assertEqual(self.engine.read()['t'], 'result')
        self.assertEqual(duplex.EVENTS, [('service started', 1), ('service stopped', 1)])

    def test_the_process_gets_started_document_and_stopped_hooks(self):
        self.init('DocumentProcess', {})
        document = {'classname': 'tests.iop4_fixtures.duplex.Document', 'encoding': 'json', 'data': '{"text":"hello"}'}
        for index, (classname, data) in enumerate((
            ('IOP.PrivateSession.Message.Start', {'Source': 'DocumentService'}),
            ('IOP.PrivateSession.Message.Document', {'Source': 'DocumentService', 'Document': document}),
            ('IOP.PrivateSession.Message.Stop', {'Source': 'DocumentService', 'AttachedMessage': None}),
        )):
            request = {'classname': classname, 'encoding': 'native', 'data': json.dumps(data)}
            self.engine.write({'t': 'invoke', 'id': 10 + index, 'hook': 'message', 'call': 1, 'args': {'request': request}})
            answer = self.engine.read()
            self.assertEqual(answer['t'], 'result', answer)
            if index == 0:
                self.assertEqual(answer['value']['classname'], 'IOP.PrivateSession.Message.Ack')
        self.engine.write({'t': 'teardown', 'id': 99})
        self.assertEqual(self.engine.read()['t'], 'result')
        self.assertEqual(duplex.EVENTS, [('process started', 'DocumentService', 0), ('document', 'DocumentService', 'hello'),
                                         ('process stopped', 'DocumentService', 0)])

    def test_a_polled_duplex_operation_sends_into_its_session_between_its_messages(self):
        self.init('PolledDuplexOperation', {'DuplexTargetConfigName': 'DocumentProcess'})
        self.engine.write({'t': 'invoke', 'id': 2, 'hook': 'process_input', 'call': 5, 'args': {'input': None}})
        ops = self.answer_ops(2)
        self.assertEqual(self.engine.read(), {'t': 'result', 'id': 2, 'value': None})
        self.assertEqual([op['body']['classname'] for op in ops], ['IOP.PrivateSession.Message.Start', 'IOP.PrivateSession.Message.Document'])
        self.assertTrue(all(op['target'] == 'DocumentProcess' for op in ops))
        document = json.loads(ops[1]['body']['data'])
        self.assertEqual(document['Source'], 'PolledDuplexOperation')
        self.assertEqual(json.loads(document['Document']['data']), {'text': 'poll 1'})
        request = {'classname': 'tests.iop4_fixtures.duplex.Document', 'encoding': 'json', 'data': '{"text":"from outside"}'}
        self.engine.write({'t': 'invoke', 'id': 3, 'hook': 'message', 'call': 6, 'args': {'request': request}})
        self.assertEqual(self.engine.read()['t'], 'result')
        self.engine.write({'t': 'invoke', 'id': 4, 'hook': 'process_input', 'call': 7, 'args': {'input': None}})
        self.assertEqual(self.answer_ops(1)[0]['body']['classname'], 'IOP.PrivateSession.Message.Document')  # session already open
        self.assertEqual(self.engine.read()['t'], 'result')
        self.assertIn(('operation message', 'from outside'), duplex.EVENTS)
        self.engine.write({'t': 'teardown', 'id': 9})
        self.assertEqual(self.answer_ops(1)[0]['body']['classname'], 'IOP.PrivateSession.Message.Stop')
        self.assertEqual(self.engine.read()['t'], 'result')

    def test_a_duplex_operation_without_inbound_code_does_nothing_on_a_poll(self):
        from iop import DuplexOperation

        class Quiet(DuplexOperation):
            get_adapter_type = PollingBusinessService.get_adapter_type

        self.assertIsNone(Quiet.__new__(Quiet).on_process_input(None))
        self.assertEqual(adapter_type_of(Quiet), 'Ens.InboundAdapter')

    def test_a_duplex_host_without_target_fails_clearly(self):
        self.init('DocumentService', {})
        body = {'classname': 'tests.iop4_fixtures.duplex.Document', 'encoding': 'json', 'data': '{"text":"x"}'}
        self.engine.write({'t': 'invoke', 'id': 2, 'hook': 'process_input', 'call': 5, 'args': {'input': body}})
        failure = self.engine.read()
        self.assertEqual(failure['t'], 'failure')
        self.assertIn('DuplexTargetConfigName', failure['failure']['message'])
        self.engine.write({'t': 'teardown', 'id': 3})
        self.assertEqual(self.engine.read()['t'], 'result')


if __name__ == '__main__':
    unittest.main()
