"""Precision case (first-sight batch 5): an ONNX export checks its graph against
the eval-mode wrapper's output on inputs it makes up: ten streaming chunks of a
random input chained through their caches, every output kept for one comparison,
or one random tensor. The graph is a few made-up tensors held for one comparison:
the premise "the forward's outputs are results, not a self-check" fails, so the
default tier is silent and the preview tier reports them.

Recall counterparts: ``made_up_inputs_kept_as_results.py``.
"""

import copy

import numpy as np
import onnxruntime
import torch
from wenet.utils.common import to_numpy


def export_encoder(encoder, path, chunk_size):
    encoder.eval()
    chunk = torch.randn((1, 1, 67, 80))
    att_cache = torch.zeros(1, 8, 128, chunk_size * 4)
    att_mask = torch.ones((1, 4, chunk_size, chunk_size * 5))
    att_mask[:, :, :, : chunk_size * 4] = 0
    torch.onnx.export(encoder, (chunk, att_cache, att_mask), path, opset_version=11)
    torch_output = []
    torch_chunk, torch_att_mask = copy.deepcopy(chunk), copy.deepcopy(att_mask)
    torch_att_cache = copy.deepcopy(att_cache)
    for i in range(10):
        torch_att_mask[:, :, :, -(chunk_size * (i + 1)) :] = 1
        out, torch_att_cache = encoder(torch_chunk, torch_att_cache, torch_att_mask)  # expect-preview: GL101:32
        torch_output.append(out)
    torch_output = torch.cat(torch_output, dim=-1)
    session = onnxruntime.InferenceSession(path)
    onnx_output = session.run(None, {"chunk": to_numpy(chunk)})[0]
    np.testing.assert_allclose(to_numpy(torch_output), onnx_output, rtol=1e-03, atol=1e-04)
    return encoder, session


def export_ctc(ctc, path, output_size, chunk_size):
    ctc = ctc.eval()
    hidden = torch.randn((1, output_size, 1, chunk_size))
    torch.onnx.export(ctc, hidden, path, opset_version=11)
    torch_output = ctc(hidden)  # expect-preview: GL101:20
    session = onnxruntime.InferenceSession(path)
    onnx_output = session.run(None, {"hidden": to_numpy(hidden)})
    np.testing.assert_allclose(to_numpy(torch_output), onnx_output[0], rtol=1e-03, atol=1e-04)
    print("check onnx_ctc: pass", torch_output.shape)
    return ctc, session
