"""Shape of the recall cause `eval-then-method-output-kept` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def best_belief(net, graphs):
    net.eval()
    posterior = net.condition(graphs)  # expect: GL101
    return torch.max(posterior.mean).unsqueeze(0)  # expect: GL301


def beliefs_per_round(net, rounds):
    kept = []
    for state, graphs in rounds:
        net.load_state_dict(state)
        kept.append(best_belief(net, graphs))
    return kept
