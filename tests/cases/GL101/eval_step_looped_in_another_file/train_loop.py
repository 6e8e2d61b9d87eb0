import torch


def train_model(trainer, test_loader, writer):
    losses = []
    for i, batch in enumerate(test_loader):
        loss, *_ = trainer.eval_step(batch)
        losses.append(loss.item())
        writer.add_scalar("loss/test", loss, i)
        print(f"test loss {loss:.3f}")
        for value, loss in zip(batch[1].tolist(), loss.flatten().tolist()):
            print("%s %r" % (value, loss))
    return losses


def tune(trainer, loader):
    for batch in loader:
        loss = trainer.validate_step(batch)
        loss.backward()
        trainer.optimizer.step()


def probe(trainer, loader):
    total, _ = trainer.predict_once(next(iter(loader)))
    print(total.item())


def collect(trainer, loader):
    outputs = []
    for batch in loader:
        out = trainer.predict_kept(batch)
        outputs.append(out)
    return outputs


def score(trainer, loader):
    for batch in loader:
        loss, _ = trainer.score_step(batch)
        print(loss.item())
