"""Shape of the recall cause `helper-forward-in-module-level-loop` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

`build_nets` (another module) imports each network class named in a config
and calls `.eval()` on it unless the run trains; `run_nets` calls them.
"""
import sys

from nets import build_nets, run_nets

mode = sys.argv[1]
nets = build_nets(mode)
for batch in range(10):
    outs = run_nets(nets, batch)  # expect: GL101
    if mode == "train":
        outs["loss"].backward()
