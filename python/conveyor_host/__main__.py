import os
import sys

from .channel import Channel
from .host import WorkerHost


def main():
    channel = Channel()
    channel.start()
    WorkerHost(channel).run()
    sys.stdout.flush()
    sys.stderr.flush()
    # Threads user code started must not keep a stopped worker alive.
    os._exit(0)


main()
