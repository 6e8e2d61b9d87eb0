"""Shape of the recall cause `patched-method-drops-inference-guard` (benchmarks/recall/first-sight-22.toml).

A plugin replaces a serving engine's worker method (which the engine had
decorated with torch.inference_mode()) by a function of its own; the new
function runs the model runner's dummy profiling forward, so that forward now
runs with gradients enabled and keeps every activation of the graph alive.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def install(worker_cls, budget):
    original = worker_cls.measure_free_memory

    def patched_measure_free_memory(self, *args, **kwargs):
        if budget is None:
            return original(self, *args, **kwargs)
        torch.cuda.reset_peak_memory_stats()
        self.model_runner.profile_run()  # expect: GL101
        peak = torch.cuda.max_memory_allocated()
        return budget - peak

    worker_cls.measure_free_memory = patched_measure_free_memory
