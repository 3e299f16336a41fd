import os
import sys
import threading

from .channel import Channel
from .host import WorkerHost

# How long a worker whose engine went away may keep running user code before it exits.
ORPHAN_GRACE_SECONDS = 2.0


def _exit_soon():
    """The engine is gone: nobody will read what user code still does. The main thread ends the
    process when it is idle; if it is stuck in user code, this timer ends it."""
    timer = threading.Timer(ORPHAN_GRACE_SECONDS, os._exit, args=(0,))
    timer.daemon = True
    timer.start()


def main():
    channel = Channel(on_close=_exit_soon)
    channel.start()
    WorkerHost(channel).run()
    sys.stdout.flush()
    sys.stderr.flush()
    # Threads user code started must not keep a stopped worker alive.
    os._exit(0)


main()
