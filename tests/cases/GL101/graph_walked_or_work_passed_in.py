"""Precision case (first-sight batch 9, a pruning library): evaluation-mode
forwards whose graph the code needs, or whose work the caller chooses.

A tracer records each output's ``grad_fn`` in hooks and walks ``next_functions``:
it needs the graph. A benchmark helper runs the model or a ``run_fn`` its caller
passes the model to (the library's tests pass one that calls ``backward()``): the
caller chooses. The default tier's premises are unproven; preview keeps both.
"""

import time


def trace(model, example_inputs):
    model.eval()
    grad_fns = {}

    def record(module, inputs, outputs):
        grad_fns[outputs.grad_fn] = module

    hooks = [m.register_forward_hook(record) for m in model.modules()]
    out = model(example_inputs)  # expect-preview: GL101
    for hook in hooks:
        hook.remove()
    stack = [out.grad_fn]
    while stack:
        fn = stack.pop()
        stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
    return grad_fns


def measure_latency(model, example_inputs, repeat=10, run_fn=None):
    model.eval()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        if run_fn is not None:
            _ = run_fn(model, example_inputs)
        else:
            _ = model(example_inputs)  # expect-preview: GL101
        times.append(time.perf_counter() - start)
    return sum(times) / len(times)


def measure_latency_of_the_model_alone(model, example_inputs, repeat=10):
    model.eval()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        _ = model(example_inputs)  # expect: GL101
        times.append(time.perf_counter() - start)
    return sum(times) / len(times)
