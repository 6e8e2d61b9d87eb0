import torch


class Exporter:
    def __init__(self, backend):
        self.backend = backend

    def run(self, encoder, examples):
        with torch.enable_grad():
            return self.backend.export_encoder(encoder, examples, "enc.onnx")
