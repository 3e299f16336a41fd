import os
import tempfile
import unittest

from tests.worker_host_case import WorkerHostCase


class HostRequestsTest(WorkerHostCase):
    """The worker host answers `dtl` and `migrate` frames with `result` or structured `failure` frames."""

    def tearDown(self):
        self.engine.write({'t': 'teardown', 'id': 999})
        self.assertEqual(self.engine.read(), {'t': 'result', 'id': 999, 'value': None})
        self.host.join(5)
        super().tearDown()

    def dtl(self, frame_id, mode, code, source=None):
        self.engine.write({'t': 'dtl', 'id': frame_id, 'mode': mode, 'code': code, 'imports': '', 'source': source or {}, 'target': {}, 'aux': '', 'locals': {}})
        return self.engine.read()

    def test_a_dtl_expression_and_block_are_answered_as_results(self):
        self.assertEqual(self.dtl(1, 'eval', 'source.GetValueAt("a.b") * 2', {'a': {'b': 21}}), {'t': 'result', 'id': 1, 'value': {'value': 42}})
        answer = self.dtl(2, 'exec', 'target.SetValueAt("x", "y")\nz = 3')
        self.assertEqual(answer, {'t': 'result', 'id': 2, 'value': {'target': {'y': 'x'}, 'locals': {'z': 3}}})

    def test_a_value_json_cannot_carry_is_answered_with_a_failure(self):
        answer = self.dtl(4, 'eval', '(lambda items: items.append(items) or items)([])')
        self.assertEqual((answer['t'], answer['failure']['type'], answer['failure']['message']), ('failure', 'ValueError', 'Circular reference detected'))

    def test_a_raising_dtl_block_is_answered_with_a_structured_failure(self):
        answer = self.dtl(3, 'exec', 'a = 1\nraise KeyError("missing")')
        self.assertEqual(answer['t'], 'failure')
        failure = answer['failure']
        self.assertEqual((failure['type'], failure['message'], failure['step']), ('KeyError', "'missing'", 'dtl'))
        self.assertEqual(failure['userFrame'], {'file': '<dtl python>', 'line': 2, 'function': '<module>'})
        self.assertIn('KeyError', failure['traceback'])

    def test_a_migrate_frame_is_answered_with_the_settings_document(self):
        folder = tempfile.mkdtemp(prefix='conveyor-settings-')
        path = os.path.join(folder, 'settings.py')
        with open(path, 'w', encoding='utf-8') as out:
            out.write("REMOTE_SETTINGS = {}\n")
        self.engine.write({'t': 'migrate', 'id': 4, 'path': path})
        self.assertEqual(self.engine.read(), {'t': 'result', 'id': 4, 'value': {'classes': [], 'productions': [], 'schemas': [], 'missing': ['classes', 'productions', 'schemas']}})

    def test_an_unknown_request_is_refused_rather_than_left_unanswered(self):
        self.engine.write({'t': 'compile', 'id': 5})
        answer = self.engine.read()
        self.assertEqual((answer['t'], answer['id'], answer['failure']['type']), ('failure', 5, 'ProtocolError'))


if __name__ == '__main__':
    unittest.main()
