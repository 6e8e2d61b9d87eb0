"""Precision case: calls in inference code that hand back a module or data, named
with a model word, taken for forwards by the preview tier (precision batch 14).

``accelerator.unwrap_model(model)`` returns the module from under its
distributed wrapper, pydantic's ``request.model_dump()`` gives a request's data
and ``ExportUtils.generate_model(config)`` builds a manifest record: none runs
a model. The model run by ``predict`` on every batch stays a preview finding.
"""

from accelerate import Accelerator
from pydantic import BaseModel

from export_utils import ExportUtils, log_statistics, post

accelerator = Accelerator()


class CreateRequest(BaseModel):
    model: str


def eval(model, loader):
    model, loader = accelerator.prepare(model, loader)
    log_statistics(accelerator.unwrap_model(model))  # expect-not: GL101


def test_create(client):
    request = CreateRequest(model="awesome model")
    res = post(client, "/", json=request.model_dump(mode="json"))  # expect-not: GL101
    assert res.status_code == 200


def generate_manifest_json(config):
    model = ExportUtils.generate_model(config)  # expect-not: GL101
    return str(model)


def predict(model, loader):
    labels = []
    for x in loader:
        labels.append(model(x).argmax(-1).tolist())  # expect-preview: GL101
    return labels
