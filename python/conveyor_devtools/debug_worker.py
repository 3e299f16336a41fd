"""Starts debugpy in this worker, then runs the worker host (``python -m conveyor_devtools.debug_worker``).

The engine starts an item's workers through this module when the item has a ``%debugpy`` Host
setting (docs/python-bridge.md, "Attaching a debugger"). ``CONVEYOR_DEBUGPY_LISTEN`` is
``host:port``; ``CONVEYOR_DEBUGPY_WAIT=1`` holds the start until a debugger attaches. Anything that
goes wrong here is written to stderr and ends the process with exit code 3: the engine quotes that
stderr in the item's start failure.
"""

import os
import runpy
import sys

_EXIT_CODE = 3


def _fail(text):
    sys.stderr.write(text + '\n')
    sys.stderr.flush()
    sys.exit(_EXIT_CODE)


def _listen_address(value):
    host, sep, port = value.rpartition(':')
    if not sep or not port.isdigit():
        _fail('conveyor debugger: CONVEYOR_DEBUGPY_LISTEN must be host:port, got %r' % value)
    return host or '127.0.0.1', int(port)


def main():
    address = _listen_address(os.environ.get('CONVEYOR_DEBUGPY_LISTEN', ''))
    try:
        import debugpy
    except ImportError:
        _fail(
            'conveyor debugger: debugpy is not installed for %s; install it into that interpreter '
            '(%s -m pip install debugpy) or remove the item\'s %%debugpy setting' % (sys.executable, sys.executable)
        )
    try:
        debugpy.listen(address)
    except Exception as error:  # address in use, permission: the item cannot be debugged as asked
        _fail('conveyor debugger: debugpy cannot listen on %s:%d: %s' % (address[0], address[1], error))
    if os.environ.get('CONVEYOR_DEBUGPY_WAIT') == '1':
        sys.stderr.write('conveyor debugger: waiting for a debugger to attach on %s:%d\n' % address)
        sys.stderr.flush()
        debugpy.wait_for_client()
    # The worker host reads its frames on fds 3 and 4, which this process inherited unchanged.
    runpy.run_module('conveyor_host', run_name='__main__', alter_sys=True)


if __name__ == '__main__':
    main()
