"""Recall case: ``utils/test_engine.py`` of a VQA code base defines
``test_engine(cfg, dataset, state_dict)``, which the trainer of another file
calls after each epoch. The file is named like a test and the function like a
test, but a function other files of the project call is an evaluation routine,
not a test the runner collects: its forwards over the whole evaluation set run
with gradients on.
"""

import numpy as np
import torch.nn as nn
import torch.utils.data as Data

from models import build_net


def test_engine(cfg, dataset, state_dict):
    net = build_net(cfg, dataset.token_size)
    net.cuda()
    net.eval()
    if cfg.n_gpu > 1:
        net = nn.DataParallel(net, device_ids=cfg.devices)
    net.load_state_dict(state_dict)
    answers = []
    for feats, questions, _ in Data.DataLoader(dataset, batch_size=cfg.eval_batch_size):
        pred = net(feats.cuda(), questions.cuda())  # expect: GL101:16
        answers.append(np.argmax(pred.cpu().data.numpy(), axis=1))
    return np.concatenate(answers)
