"""Shape of the recall cause `data0-loss-name` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def report(step, loss):
    print("step %d loss %.3f" % (step, loss.data[0]))  # expect: GL003
