import importlib.util
import os
import sys
import tempfile
import textwrap
import unittest

from conveyor_host.failure import failure_of, is_user_file


def _user_module(source):
    """A module outside the SDK and the standard library: user code, as the worker sees it."""
    folder = tempfile.mkdtemp(prefix='conveyor-user-')
    path = os.path.join(folder, 'userlib.py')
    with open(path, 'w', encoding='utf-8') as out:
        out.write(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location('userlib_for_failure_test', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def _raised(function, *args):
    try:
        function(*args)
    except BaseException as error:  # noqa: BLE001 - the test wants whatever was raised
        return error
    raise AssertionError('nothing was raised')


class FailureTest(unittest.TestCase):
    def test_the_user_frame_is_the_innermost_frame_of_user_code(self):
        module, path = _user_module('''
            import json

            def parse(text):
                return json.loads(text)

            def on_message(request):
                raise ValueError('bad input ' + request)
        ''')
        failure = failure_of(_raised(module.on_message, 'x'), 'on_message')
        self.assertEqual(failure['type'], 'ValueError')
        self.assertEqual(failure['message'], 'bad input x')
        self.assertEqual(failure['step'], 'on_message')
        self.assertEqual(failure['userFrame'], {'file': path, 'line': 8, 'function': 'on_message'})
        self.assertTrue(failure['traceback'].startswith('Traceback (most recent call last):'))
        self.assertTrue(failure['traceback'].endswith('ValueError: bad input x\n'))
        # The standard library raised (json), inside user code: the user's call is the frame.
        decoding = failure_of(_raised(module.parse, '{'), 'on_message')
        self.assertEqual(decoding['type'], 'JSONDecodeError')
        self.assertEqual(decoding['userFrame'], {'file': path, 'line': 5, 'function': 'parse'})

    def test_an_sdk_error_has_no_user_frame_unless_its_cause_has_one(self):
        def sdk_alone():
            raise RuntimeError('the SDK itself')

        self.assertIsNone(failure_of(_raised(sdk_alone), 'serialize')['userFrame'])
        module, path = _user_module('''
            def load():
                return 1 / 0
        ''')

        def sdk_wrapping():
            try:
                module.load()
            except ZeroDivisionError as error:
                raise LookupError('loading the file failed') from error

        wrapped = failure_of(_raised(sdk_wrapping), 'migrate')
        self.assertEqual(wrapped['type'], 'LookupError')
        self.assertEqual(wrapped['userFrame'], {'file': path, 'line': 3, 'function': 'load'})
        self.assertIn('ZeroDivisionError: division by zero', wrapped['traceback'])

    def test_a_user_module_that_does_not_compile_names_its_line(self):
        folder = tempfile.mkdtemp(prefix='conveyor-user-')
        path = os.path.join(folder, 'broken.py')
        with open(path, 'w', encoding='utf-8') as out:
            out.write('x = 1\ndef nope(:\n')
        with open(path, encoding='utf-8') as source:
            text = source.read()
        failure = failure_of(_raised(compile, text, path, 'exec'), 'import')
        self.assertEqual(failure['type'], 'SyntaxError')
        self.assertEqual(failure['userFrame'], {'file': path, 'line': 2, 'function': '<module>'})

    def test_compiled_text_is_user_code_and_frozen_importlib_is_not(self):
        self.assertTrue(is_user_file('<dtl python>'))
        self.assertFalse(is_user_file('<frozen importlib._bootstrap>'))
        self.assertFalse(is_user_file(os.__file__))
        self.assertFalse(is_user_file(sys.modules['conveyor_host.failure'].__file__))


if __name__ == '__main__':
    unittest.main()
