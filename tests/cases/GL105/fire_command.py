"""Precision case: a chat command that ``fire.Fire`` runs as the process's work.

``local_chat`` is handed to ``fire.Fire`` by the last statement of the
``__main__`` block and nothing else refers to it: it is the process's command,
and the program ends when it returns, so switching grad off for the rest of the
thread is what it means. Reported only in the preview tier.
"""

import fire
import torch


def local_chat(path="model.pt"):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    model = torch.load(path)
    while True:
        prompt = input("> ")
        print(model.generate(prompt))


if __name__ == "__main__":
    fire.Fire(local_chat)
