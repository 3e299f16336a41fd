"""Received messages decoded on first use (iop/_stand_ins.py, made by `deserialize(body, lazy=True)` in iop/_serialization.py): a large dataclass
message that a component passes on untouched goes out as it came in (named, while its request is unanswered); any read decodes it
into a plain instance of its class, and a changed one is encoded from its attributes."""
import copy
import dataclasses
import json
import pickle
import threading
import unittest

from iop._serialization import SerializationError, deserialize, serialize
from tests import forwarding_components
from tests.forwarding_components import Bulky, Checked, Frozen, Registered, Slotted
from tests.worker_host_case import WorkerHostCase

BULKY = 'tests.forwarding_components.Bulky'
# Not the compact form serialize writes: spacing, key order and an unknown key must all survive a pass-on.
TEXT = '{ "tags": ["a"],  "payload": "' + 'é€x' * 800 + '", "sequence": 7, "extra": {"k": 1} }'


def receive(body):
    return deserialize(body, lazy=True)


def body(text=TEXT, classname=BULKY):
    return {'classname': classname, 'encoding': 'json', 'data': text}


class ReceiveTest(unittest.TestCase):
    def test_a_message_passed_on_untouched_goes_out_as_the_text_it_came_in(self):
        message = receive(body())
        message._iris_id = 12
        self.assertEqual(serialize(message), body())

    def test_the_first_read_gives_what_decoding_at_once_gives(self):
        message = receive(body())
        message._iris_id = 12
        eager = deserialize(body())
        eager._iris_id = 12
        self.assertEqual(message.sequence, 7)
        self.assertIs(type(message), Bulky)
        self.assertEqual(vars(message), vars(eager))
        self.assertEqual(list(vars(message)), list(vars(eager)))
        self.assertEqual(message.get_iris_id(), 12)

    def test_before_the_first_read_it_is_an_instance_of_its_class_and_its_type_equals_it(self):
        message = receive(body())
        self.assertIsInstance(message, Bulky)
        self.assertTrue(type(message) == Bulky and Bulky == type(message))
        self.assertEqual({Bulky: 'found'}[type(message)], 'found')
        self.assertEqual((type(message).__module__, type(message).__qualname__), ('tests.forwarding_components', 'Bulky'))
        self.assertIs(message.__class__, Bulky)
        self.assertFalse(isinstance(message, Frozen))  # a failed check asks __class__, which needs no decoding
        self.assertEqual(serialize(message), body())  # still undecoded

    def test_a_read_message_is_encoded_from_its_attributes(self):
        message = receive(body())
        self.assertEqual(len(message.payload), 2400)
        sent = json.loads(serialize(message)['data'])
        self.assertEqual(sent, {'sequence': 7, 'payload': 'é€x' * 800, 'tags': ['a'], 'extra': {'k': 1}})

    def test_a_message_changed_after_receipt_goes_out_changed(self):
        changes = {
            'a field set': lambda m: setattr(m, 'sequence', 8),
            'a list changed in place': lambda m: m.tags.append('b'),
            'an attribute added': lambda m: setattr(m, 'note', 'n'),
            'an attribute deleted': lambda m: delattr(m, 'extra'),
        }
        for name, change in changes.items():
            with self.subTest(name):
                message = receive(body())
                change(message)
                expected = deserialize(body())
                change(expected)
                self.assertEqual(json.loads(serialize(message)['data']), json.loads(serialize(expected)['data']))

    def test_copies_pickles_and_dataclass_helpers_see_the_decoded_message(self):
        eager = deserialize(body())
        for name, make in {
            'copy': copy.copy, 'deepcopy': copy.deepcopy, 'pickle': lambda m: pickle.loads(pickle.dumps(m)),
            'replace': lambda m: dataclasses.replace(m), 'asdict': lambda m: Bulky(**dataclasses.asdict(m)),
        }.items():
            with self.subTest(name):
                made = make(receive(body()))
                self.assertIs(type(made), Bulky)
                self.assertEqual(made, eager)
        self.assertEqual(receive(body()), eager)
        self.assertEqual(repr(receive(body())), repr(eager))

    def test_init_and_post_init_run_on_the_received_object_itself(self):
        message = receive(body('{"payload": "' + 'p' * 2000 + '"}', 'tests.forwarding_components.Checked'))
        self.assertEqual(message.built_on, id(message))
        self.assertIs(type(message), Checked)

    def test_another_thread_reading_during_the_decoding_waits_for_the_fields(self):
        # `extra` is no field: it is set after __init__, so it is missing while the hook runs.
        message = receive(body('{"payload": "' + 'p' * 2000 + '", "extra": 5}', 'tests.forwarding_components.Checked'))
        decoding, seen = threading.Event(), []
        reader = threading.Thread(target=lambda: (decoding.wait(5), seen.append(message.extra)))
        reader.start()

        def hook(instance):  # runs inside the decoding, on this thread
            decoding.set()
            reader.join(0.2)  # the reader is blocked until the decoding ends

        forwarding_components.BUILD_HOOK = hook
        try:
            self.assertEqual(len(message.payload), 2000)
        finally:
            forwarding_components.BUILD_HOOK = None
        reader.join(5)
        self.assertEqual(seen, [5])

    def test_decoding_waits_on_no_lock_but_the_message_s_own(self):
        # The hook (user code in __post_init__) waits for a thread that reads another received
        # message: with one lock for every message it waited forever.
        first = receive(body('{"payload": "' + 'p' * 2000 + '"}', 'tests.forwarding_components.Checked'))
        second = receive(body('{"payload": "' + 'q' * 2000 + '"}', 'tests.forwarding_components.Checked'))
        seen = []

        def hook(instance):
            if instance is first:
                forwarding_components.BUILD_HOOK = None
                reader = threading.Thread(target=lambda: seen.append(len(second.payload)))
                reader.start()
                reader.join(5)

        forwarding_components.BUILD_HOOK = hook
        try:
            self.assertEqual(len(first.payload), 2000)
        finally:
            forwarding_components.BUILD_HOOK = None
        self.assertEqual(seen, [2000])

    def test_its_type_called_before_the_first_read_builds_a_plain_instance(self):
        message = receive(body())
        built = type(message)(sequence=1, payload='x')
        self.assertIs(type(built), Bulky)
        self.assertEqual(pickle.loads(pickle.dumps(built)), built)
        self.assertEqual(serialize(message), body())  # calling its type did not decode it

    def test_an_attribute_error_while_decoding_is_raised_not_taken_for_a_missing_attribute(self):
        message = receive(body('{"payload": "' + 'p' * 2000 + '"}', 'tests.forwarding_components.Checked'))

        def hook(instance):
            raise AttributeError('no such thing')

        forwarding_components.BUILD_HOOK = hook
        try:
            with self.assertRaises(SerializationError) as raised:
                hasattr(message, 'payload')
        finally:
            forwarding_components.BUILD_HOOK = None
        self.assertIn('no such thing', str(raised.exception))
        self.assertEqual(len(message.payload), 2000)  # still decodable once the hook is gone

    def test_a_body_that_does_not_decode_fails_at_the_first_read_and_again_at_the_next(self):
        message = receive(body('{"payload": "' + 'p' * 2000 + '", broken'))
        for _ in range(2):
            with self.assertRaises(json.JSONDecodeError) as raised:
                message.payload
            self.assertEqual(raised.exception.__notes__, ['(while decoding the received tests.forwarding_components.Bulky when it was first used)'])
        self.assertEqual(serialize(message)['data'], '{"payload": "' + 'p' * 2000 + '", broken')

    def test_short_bodies_and_classes_that_hook_attribute_writes_or_subclassing_are_decoded_at_once(self):
        cases = [
            ('short', BULKY, '{"payload": "p", "sequence": 1}'),
            ('frozen', 'tests.forwarding_components.Frozen', '{"payload": "' + 'p' * 2000 + '"}'),
            ('registered', 'tests.forwarding_components.Registered', '{"payload": "' + 'p' * 2000 + '"}'),
        ]
        for name, classname, text in cases:
            with self.subTest(name):
                message = receive(body(text, classname))
                self.assertIs(type(message), type(deserialize(body(text, classname))))
                self.assertEqual(message, deserialize(body(text, classname)))
        self.assertEqual(Registered.subclasses, [])
        frozen = receive(body('{"payload": "' + 'p' * 2000 + '"}', 'tests.forwarding_components.Frozen'))
        with self.assertRaises(AttributeError):  # a frozen message refuses its id, as before
            frozen._iris_id = 3

    def test_a_dataclass_with_slots_for_its_fields_decodes_into_them(self):
        text = '{"payload": "' + 'p' * 2000 + '"}'
        message = receive(body(text, 'tests.forwarding_components.Slotted'))
        self.assertEqual(serialize(message)['data'], text)
        self.assertEqual(message, Slotted(payload='p' * 2000))
        self.assertIs(type(message), Slotted)

    def test_a_class_that_cannot_be_imported_fails_on_receipt(self):
        with self.assertRaisesRegex(ImportError, 'Failed to load class tests.nowhere.Bulky'):
            receive(body(classname='tests.nowhere.Bulky'))


class PassOnThroughAWorkerTest(WorkerHostCase):
    """A real worker host between two pipes: what the engine receives when a process passes on a large request."""

    def pass_on(self, class_name, hook='message', request_id=2, init=True):
        """Sends TEXT into `class_name` as engine request `request_id`; returns the op frame it sends on,
        its echoes and its carried bytes."""
        if init:
            self.engine.write({'t': 'init', 'id': 1, 'module': 'tests.forwarding_components', 'className': class_name, 'classpaths': [],
                               'configName': class_name, 'settings': {'host': {}, 'adapter': {}}})
            self.assertEqual(self.engine.read()['t'], 'result')
        args = {'request': {**body(), 'data': 0}, 'messageId': 40} if hook == 'message' else {'input': {**body(), 'data': 0}}
        path = ['args', 'request', 'data'] if hook == 'message' else ['args', 'input', 'data']
        self.engine.write({'t': 'invoke', 'id': request_id, 'hook': hook, 'call': 9, 'args': args}, [(path, TEXT)])
        head, carried = self.engine.read_raw()
        op, slots, *echoes = head
        echoes = echoes[0] if echoes else []
        self.assertEqual((op['t'], op['op'], op['target']), ('op', 'send_sync', 'Next'))
        self.assertEqual(slots, [[len(carried), 'body', 'data']] if carried else [])
        reply = json.dumps({'sequence': 1, 'payload': 'ok'})
        self.engine.write({'t': 'result', 'id': op['id'], 'value': {'classname': BULKY, 'encoding': 'json', 'data': reply}})
        answer = self.engine.read()
        self.assertEqual((answer['t'], json.loads(answer['value']['data'])), ('result', {'sequence': 1, 'payload': 'ok', 'tags': []}))
        return op, echoes, carried

    def test_a_process_that_only_routes_names_the_string_it_received_instead_of_sending_it(self):
        op, echoes, carried = self.pass_on('PassOn')
        self.assertEqual((op['body']['classname'], echoes, carried), (BULKY, [[2, 0, 'body', 'data']], b''))

    def test_a_service_passing_its_input_on_names_the_string_it_received(self):
        _, echoes, carried = self.pass_on('InputPassOn', hook='process_input')
        self.assertEqual((echoes, carried), ([[2, 0, 'body', 'data']], b''))

    def test_a_typed_handler_is_found_for_an_undecoded_request_which_goes_on_as_it_came(self):
        _, echoes, carried = self.pass_on('TypedHandlers')
        self.assertEqual((echoes, carried), ([[2, 0, 'body', 'data']], b''))

    def test_a_message_kept_from_an_answered_request_is_sent_as_its_bytes(self):
        # The engine let go of request 2's strings once it read its answer: the same text, sent in
        # request 3, must travel whole; request 3's own string could have been echoed, not 2's.
        self.assertEqual(self.pass_on('PassOnLater')[1:], ([[2, 0, 'body', 'data']], b''))
        _, echoes, carried = self.pass_on('PassOnLater', request_id=3, init=False)
        self.assertEqual((echoes, carried), ([], TEXT.encode('utf-8')))

    def test_a_process_that_reads_sends_the_same_message_encoded_again(self):
        _, _, carried = self.pass_on('ReadThenPassOn')
        self.assertEqual(json.loads(carried), json.loads(TEXT))

    def test_a_process_that_changes_the_request_sends_the_change(self):
        _, _, carried = self.pass_on('ChangeThenPassOn')
        self.assertEqual(json.loads(carried), {**json.loads(TEXT), 'sequence': 8, 'tags': ['a', 'seen']})


if __name__ == '__main__':
    unittest.main()
