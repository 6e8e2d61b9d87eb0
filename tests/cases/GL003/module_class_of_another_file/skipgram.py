import torch
from torch import nn


class GraphSkipgram(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.u_embeddings = nn.Linear(dim, dim)
        self.v_embeddings = nn.Linear(dim, dim)

    def forward(self, u_pos, v_pos, loss_type="bce"):
        if loss_type == "bce":
            pred = torch.sigmoid((self.u_embeddings(u_pos) * self.v_embeddings(v_pos)).sum(1))
            return nn.functional.binary_cross_entropy(pred, torch.ones_like(pred))
