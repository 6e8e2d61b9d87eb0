"""Precision case: per-instance outputs of an eval-mode model kept for a comparison.

A test helper puts the model in eval mode, runs it on each of a handful of
instances, keeps the outputs and compares them with one batched forward after
the loop. The outputs do carry graphs, because the forwards run with gradients
on: that is GL101's finding on the forward, and its ``no_grad`` fixes both. The
list is bounded by the instances and is used after the loop.
"""


class ModelTestCase:
    def ensure_batch_predictions_are_consistent(self):
        self.model.eval()
        single_predictions = []
        for instance in self.instances:
            tensors = self.as_tensors([instance])
            result = self.model(**tensors)
            single_predictions.append(result)  # expect-not: GL301
        batch_predictions = self.model(**self.as_tensors(self.instances))
        for i, single in enumerate(single_predictions):
            for key, value in single.items():
                assert value[0].tolist() == batch_predictions[key][i].tolist()
