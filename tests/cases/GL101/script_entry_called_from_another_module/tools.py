import torch

import script_entry_called_from_another_module as export


class Exporter:
    def run(self, encoder, examples):
        with torch.enable_grad():
            return export.export_encoder(encoder, examples, "enc.onnx")
