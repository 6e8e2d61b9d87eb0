"""Recall case (kept; issue 26), the twin of
``script_entry_method_of_same_name_elsewhere.py``: ``tools.py`` imports this
module and calls ``export.export_encoder(...)`` with gradients on, a proven
caller of the function, so the script's guarded entry is not the only place it
runs from: its forward after ``eval()`` records a graph.
"""

import torch


def export_encoder(encoder, examples, path):
    encoder.eval()
    traced = None
    for x in examples:
        y = encoder(x)  # expect: GL101:13
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
