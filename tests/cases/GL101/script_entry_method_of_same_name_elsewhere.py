"""Precision case (issue 26): a script's uncalled entry function is not called
by a method of the same name in another file.

As in ``script_entry_under_no_grad.py``, ``export_encoder`` is called nowhere
and the script's guarded entry runs its functions under ``torch.no_grad()``.
``tools.py`` of the project calls ``self.backend.export_encoder(...)``, with
gradients on: a method of whatever ``self.backend`` holds, which no import ties
to this module. It proves no caller, so grad mode stays off for both exports.
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
