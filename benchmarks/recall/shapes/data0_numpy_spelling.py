"""Shape of the recall cause `data0-numpy-spelling` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def log_losses(d_loss, g_loss):
    print(d_loss.data.cpu().numpy()[0], g_loss.data.numpy()[0])  # expect: GL003
