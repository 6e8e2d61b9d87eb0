"""Precision case (preview): ``msg.data[0]`` of a CAN message in a module that never
names the tensor library (this text must not either: any mention counts).

The module imports its dependencies, none of them for tensors: ``msg`` is a
``can.Message`` and its ``.data`` a ``bytearray``, whose first byte is an ID.
``msg.item()`` would raise ``AttributeError``. Only the preview tier, which
does not ask what the module works with, reports it.
"""

import logging
import time

logger = logging.getLogger(__name__)


def wait_for(bus, expected_id, timeout):
    start = time.time()
    while time.time() - start < timeout:
        msg = bus.recv(timeout=0.01)
        if not msg:
            continue
        if msg.data[0] == expected_id:  # expect-preview: GL003:12
            return msg
    logger.warning("no reply from %s", expected_id)
    return None
