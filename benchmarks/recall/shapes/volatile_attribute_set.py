"""Shape of the recall cause `volatile-attribute-set` (benchmarks/recall, first-sight batch 3).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def td_target(net, reward, next_state, gamma=0.9):
    with torch.no_grad():
        q_next = net(next_state).max(1)[0]
    target = reward + gamma * q_next
    target.volatile = False  # expect: GL004
    return target
