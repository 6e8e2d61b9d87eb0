"""Precision case: a loss class of another package proves no 0-dim output.

``SpeechLoss`` comes from a package that is not torch (a CTC binding whose
forward returns a one-element 1-dim tensor): ``loss.data[0]`` reads that
element and works today, even scaled and accumulated. torch's own loss
classes (and an unknown ``criterion`` parameter) keep the finding.
"""

import torch
import torch.nn as nn
from speechctc import SpeechLoss


def fit_speech(model, batches, optimizer):
    objective = SpeechLoss(blank=0)
    running = 0.0
    for feats, labels, feat_lens, label_lens in batches:
        loss = objective(model(feats), labels, feat_lens, label_lens)
        loss = loss / feats.size(0)
        running += loss.data[0]  # expect-not: GL003
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return running


def fit_tagger(model, batches, optimizer):
    objective = nn.NLLLoss()
    running = 0.0
    for words, tags in batches:
        loss = objective(model(words), tags)
        loss = loss / words.size(0)
        running += loss.data[0]  # expect: GL003:20
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return running


def fit_any(model, batches, criterion):
    running = 0.0
    for x, y in batches:
        loss = criterion(model(x), y)
        running += loss.data[0]  # expect: GL003:20
        torch.autograd.backward(loss)
    return running
