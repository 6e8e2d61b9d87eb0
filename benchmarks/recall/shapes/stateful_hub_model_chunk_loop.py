"""Shape of the recall cause `stateful-hub-model-chunk-loop` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def speech_probabilities(audio, window=512):
    # the hub model carries its recurrent state from one call to the next
    model, _ = torch.hub.load("someone/voice-activity", "detector")
    probs = []
    for start in range(0, audio.shape[-1], window):
        chunk = audio[start:start + window]
        probs.append(model(chunk, 16000).item())  # expect: GL1xx
    return probs
