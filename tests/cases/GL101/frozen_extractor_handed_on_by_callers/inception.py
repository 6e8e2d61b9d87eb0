import torch.nn as nn


class InceptionV3(nn.Module):
    BLOCK_INDEX_BY_DIM = {2048: 3}

    def __init__(self, output_blocks, resize_input=True, requires_grad=False):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Conv2d(3, 8, 3) for _ in output_blocks])
        for param in self.parameters():
            param.requires_grad = requires_grad

    def forward(self, x):
        return [block(x) for block in self.blocks]
