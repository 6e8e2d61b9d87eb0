"""Precision case: ``.data`` of protobuf messages and Caffe blobs.

Converting Caffe weights: a loaded net's blob ``.data`` is a NumPy array,
and a ``BlobProto`` read from a ``.caffemodel`` keeps its values in the
repeated protobuf field ``data``. None of them is a tensor.
"""

import numpy as np
import torch


def caffe_to_state_dict(caffe_net):
    state = {}
    for name, blobs in caffe_net.params.items():
        state[name + ".weight"] = torch.from_numpy(blobs[0].data.copy())  # expect-not: GL203
        if len(blobs) > 1:
            state[name + ".bias"] = torch.from_numpy(blobs[1].data.copy())  # expect-not: GL203
    return state


def blob_proto_to_tensor(blob_proto):
    values = np.array(blob_proto.data, dtype=np.float32)  # expect-not: GL203
    return torch.from_numpy(values.reshape(tuple(blob_proto.shape.dim)))
