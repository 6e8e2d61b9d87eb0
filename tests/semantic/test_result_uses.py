"""What callers in other files do with a method's results (``semantic.result_uses``):
calls in loops whose results are read only as numbers, and the index's answer
for a method all of whose calls are such."""

from __future__ import annotations

import ast
import textwrap

from gradlint.semantic import project, result_uses


def dropped(code: str) -> dict:
    code = textwrap.dedent(code)
    return result_uses.dropped_results(ast.parse(code), code)


def test_calls_in_loops_whose_results_are_read_as_numbers():
    assert dropped(
        """
        def run(trainer, loader, writer):
            for i, batch in enumerate(loader):
                loss, *_ = trainer.eval_step(batch)
                writer.add_scalar("loss", loss, i)
                print(f"{loss:.3f}", loss.item(), loss.flatten().tolist())
                for loss in loss.tolist():
                    print("%r" % loss)
            while True:
                trainer.predict(batch)
        """
    ) == {"eval_step": 1, "predict": 1}  # only methods named for inference are counted


def test_results_kept_returned_or_differentiated_and_calls_outside_loops_are_not():
    assert dropped(
        """
        def run(trainer, loader, kept):
            once = trainer.eval_once(loader)
            for batch in loader:
                a = trainer.eval_kept(batch)
                kept.append(a)
                b = trainer.eval_summed(batch)
                b.sum().backward()
                c = trainer.eval_returned(batch)
                self.last = trainer.eval_stored(batch)
            return c
        """
    ) == {}


def test_functions_that_touch_grad_mode_or_are_decorated_count_nothing():
    assert dropped(
        """
        import torch

        class Runner:
            def run(self, trainer, loader):
                for batch in loader:
                    trainer.eval_step(batch)

        def guarded(trainer, loader):
            with torch.no_grad():
                for batch in loader:
                    trainer.eval_step(batch)

        @decorated
        def anything(trainer, loader):
            for batch in loader:
                trainer.eval_step(batch)
        """
    ) == {"eval_step": 1}  # the method's


def _index(callers: str) -> project.Project:
    trainer = "class Trainer:\n    def eval_step(self, b):\n        return b\n"
    return project.build([("pkg/trainer.py", trainer), ("pkg/loop.py", textwrap.dedent(callers))])


def test_a_method_whose_every_call_elsewhere_drops_its_results():
    loop = """
        def run(trainer, loader):
            for batch in loader:
                loss = trainer.eval_step(batch)
                print(loss.item())
        """
    assert result_uses.dropped_in_loops(_index(loop), "eval_step", "pkg/trainer.py")
    # a file calling it and holding none of the index's other words is summarised
    assert project.summarize("pkg/loop.py", textwrap.dedent(loop)) is not None
    once = loop + "\n\ndef first(trainer, loader):\n    return trainer.eval_step(next(iter(loader)))\n"
    assert not result_uses.dropped_in_loops(_index(once), "eval_step", "pkg/trainer.py")
    assert not result_uses.dropped_in_loops(_index("x = 1\n"), "eval_step", "pkg/trainer.py")  # no caller
    scored = loop.replace("eval_step", "score")
    assert not result_uses.dropped_in_loops(_index(scored), "score", "pkg/trainer.py")  # calls of it may go unindexed
