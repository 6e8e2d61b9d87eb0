"""Recall case (first-sight recall batch 13): ``self.eval()`` in a model's
sampling method, then its own layers run one by one with grad on.

``self.eval()`` puts every submodule in eval mode; what ``sample`` returns are
token ids drawn by ``torch.multinomial``, with no graph. Precision: a loss
taken back through the layers, ``self.train()`` before the forwards, a
``no_grad`` block, a layer frozen in the class (``self.emb``) or one with no
weights (``self.drop``) stay silent.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CharDecoder(nn.Module):
    def __init__(self, n_vocab, d_z, d_h, freeze_emb=False):
        super().__init__()
        self.emb = nn.Embedding(n_vocab, d_h)
        if freeze_emb:
            self.emb.weight.requires_grad = False
        self.lat = nn.Linear(d_z, d_h)
        self.rnn = nn.GRU(2 * d_h, d_h, batch_first=True)
        self.fc = nn.Linear(d_h, n_vocab)
        self.drop = nn.Dropout(0.1)

    def sample(self, z, bos, n_len=100):
        self.eval()
        h = self.lat(z).unsqueeze(0)  # expect: GL101:13
        w = torch.full((z.size(0),), bos, dtype=torch.long, device=z.device)
        x = torch.zeros(z.size(0), n_len, dtype=torch.long, device=z.device)
        for i in range(n_len):
            o, h = self.rnn(torch.cat([self.emb(w), h[-1]], -1).unsqueeze(1), h)
            w = torch.multinomial(F.softmax(self.fc(o.squeeze(1)), dim=-1), 1)[:, 0]
            x[:, i] = w
        self.train()
        return x

    def fit_step(self, x, z, optimizer):
        self.eval()
        logits = self.fc(self.lat(z))  # expect-not: GL101
        loss = F.cross_entropy(logits, x[:, 0])
        loss.backward()
        optimizer.step()
        return loss.item()

    def sample_in_train_mode(self, z):
        self.eval()
        self.train()
        return torch.multinomial(F.softmax(self.fc(self.lat(z)), -1), 1)  # expect-not: GL101

    def sample_without_grad(self, z):
        self.eval()
        with torch.no_grad():
            probs = F.softmax(self.fc(self.lat(z)), -1)  # expect-not: GL101
        return torch.multinomial(probs, 1)

    def embed_tokens(self, w, h):
        self.eval()
        return self.emb(w).argmax(-1), self.drop(h).argmax(-1)  # expect-not: GL101
