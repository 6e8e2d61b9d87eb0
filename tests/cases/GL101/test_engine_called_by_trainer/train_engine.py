import torch

from test_engine_called_by_trainer import test_engine


def train_engine(cfg, net, dataset, eval_dataset, optimizer):
    for epoch in range(cfg.max_epoch):
        for feats, questions, answers in torch.utils.data.DataLoader(dataset, batch_size=cfg.batch_size):
            loss = torch.nn.functional.cross_entropy(net(feats, questions), answers)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        test_engine(cfg, eval_dataset, net.state_dict())
