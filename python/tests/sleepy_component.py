import time

from iop import BusinessOperation


class Sleepy(BusinessOperation):
    def on_init(self):
        print('sleeping', flush=True)
        time.sleep(60)
