"""Shape of the recall cause `loss-in-dict-appended` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def run_epoch(module, loader, opt):
    outputs = []
    for i, batch in enumerate(loader):
        output = module.training_step(batch, i)
        output["loss"].backward()
        opt.step()
        outputs.append(output)  # expect: GL301
    return module.training_epoch_end(outputs)
