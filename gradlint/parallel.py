"""Run a function over many items in worker processes, with results in item order.

- Ctrl-C: workers ignore SIGINT, so none is cut off in the middle of a file
  (whose fix is written atomically, but whose temporary file would be left
  behind). The parent stops handing out items, waits for the few already
  running to finish, and raises KeyboardInterrupt.
- A worker that dies (a crash in the native parser on a pathological file, the
  OOM killer) takes down the pool; the items it left unfinished are run again,
  one worker at a time, and an item whose worker dies is run once more on its
  own: if that worker dies too, the item gets a :class:`WorkerDied` result,
  and the others their real results.
- On Linux the workers are forked: they start in milliseconds with everything
  the parent has imported. Elsewhere the platform's default start method
  ("spawn") is used, since forking is unsafe there.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

# concurrent.futures and multiprocessing are imported when a pool is started:
# a run that needs none (one file, a warm cache) does not pay for them.

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(Exception):
    """The result of an item whose worker process died while running it."""


def cpu_count() -> int:
    """The CPUs this process may run on (fewer than the machine's in a container)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _context() -> Any:
    import multiprocessing

    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def forks() -> bool:
    """Whether workers are forked: they then start with the parent's module state."""
    return _context().get_start_method() == "fork"


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if forks():
        # What the worker inherited (modules, the parent's documents and project
        # index) lives as long as it does: out of the collector's sight, full
        # collections do not walk it again and again, nor touch its pages (which
        # copy-on-write would then copy).
        gc.freeze()


def map_ordered(
    fn: Callable[..., R],
    items: Sequence[Tuple[Any, ...]],
    jobs: int,
    on_result: Optional[Callable[[int, Any], None]] = None,
) -> List[Any]:
    """``[fn(*item) for item in items]`` computed by ``jobs`` worker processes.

    The result of an item that kills its worker is a :class:`WorkerDied`.
    ``on_result(index, result)`` is called in the parent as each result arrives.
    """
    results: Dict[int, Any] = {}
    todo = list(range(len(items)))
    workers = max(1, min(jobs, len(items)))
    while todo:
        broken = _run_pool(fn, items, todo, workers, results, on_result)
        todo = [i for i in todo if i not in results]
        if not broken:
            break
        if workers == 1 and todo:
            # One worker runs its items in order: the first unfinished one most
            # likely killed it. Alone in a pool, it is known for sure.
            first = todo.pop(0)
            if _run_pool(fn, items, [first], 1, results, on_result):
                results[first] = WorkerDied("the worker process checking this file died")
                if on_result is not None:
                    on_result(first, results[first])
        workers = 1
    return [results[i] for i in range(len(items))]


def _run_pool(
    fn: Callable[..., Any],
    items: Sequence[Tuple[Any, ...]],
    indexes: List[int],
    workers: int,
    results: Dict[int, Any],
    on_result: Optional[Callable[[int, Any], None]],
) -> bool:
    """Run ``indexes`` in a pool of ``workers``; True if the pool broke."""
    from concurrent.futures import Future, ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # Forked workers inherit SIGINT ignored from the moment they exist (the
    # initializer would come too late for a Ctrl-C during start-up).
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        executor = ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_start_worker)
        futures: Dict[Future, int] = {}
        for i in indexes:
            futures[executor.submit(fn, *items[i])] = i
    finally:
        signal.signal(signal.SIGINT, previous)
    broken = False
    try:
        # as_completed() waits on every future once; wait(FIRST_COMPLETED) in a
        # loop would lock and unlock all pending futures for each result.
        for future in as_completed(futures):
            try:
                result = future.result()
            except BrokenProcessPool:
                broken = True
                continue
            except Exception as exc:  # e.g. a result that cannot be pickled
                result = exc
            i = futures[future]
            results[i] = result
            if on_result is not None:
                on_result(i, result)
    except BaseException:
        # Ctrl-C: items not started are dropped, running ones end normally.
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
    return broken


def beside(fn: Callable[..., R], args: Tuple[Any, ...], meanwhile: Callable[[], None]) -> Any:
    """``fn(*args)`` in one forked worker while ``meanwhile()`` runs in this process
    (two things of one run, neither waiting on the other). The result, or, as
    :func:`map_ordered` gives them, the exception ``fn`` raised or a :class:`WorkerDied`.
    Only where workers fork: the worker starts with this process's state."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        executor = ProcessPoolExecutor(max_workers=1, mp_context=_context(), initializer=_start_worker)
        future = executor.submit(fn, *args)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        meanwhile()
        try:
            return future.result()
        except BrokenProcessPool:
            return WorkerDied("the worker process died")
        except Exception as exc:  # e.g. a result that cannot be pickled
            return exc
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
