"""Precision case: an export script whose module-level entry runs under ``torch.no_grad()``.

``export_decoder`` runs a traced decoder once per example after ``eval()``; it
is called in the guarded block at the end of the file. ``export_encoder`` is
called nowhere (its call in the guarded block is commented out, the script's
author switching between exports): the guarded entry is the only place it is
written to run from, so grad mode is off for both.
"""

import torch


def export_encoder(encoder, examples, path):
    encoder.eval()
    traced = None
    for x in examples:
        y = encoder(x)  # expect-not: GL101
        traced = torch.jit.trace(encoder, (x,))
        print(y.shape)
    traced.save(path)


def export_decoder(decoder, examples, path):
    decoder.eval()
    traced = None
    for z in examples:
        y = decoder(z)  # expect-not: GL101
        traced = torch.jit.trace(decoder, (z,))
        print(y.shape)
    traced.save(path)


with torch.no_grad():
    # export_encoder(torch.load("enc.pt"), [torch.load("x.pt")], "enc.ts")
    export_decoder(torch.load("dec.pt"), [torch.load("z.pt")], "dec.ts")
