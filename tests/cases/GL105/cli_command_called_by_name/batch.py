import torch

from cli_command_called_by_name import predict


class Runner:
    def run_all(self, paths):
        return [predict(p) for p in paths]
