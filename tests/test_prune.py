"""``ferric.nn.utils.prune`` replayed against PyTorch 2.13's recorded behaviour
(``tests/fixtures/prune``): masks (ties in magnitude, iterative pruning through
``PruningContainer``, structured and global pruning, the random methods after
``manual_seed``), the ``<name>_orig`` / ``<name>_mask`` reparametrization as seen through
``named_parameters``, ``named_buffers``, ``state_dict`` and the hooks, before and after
``remove``, and the exception types and messages of bad input."""

from __future__ import annotations

import json
import math
import re

import pytest
from fixture_loader import Recording

import ferric
from ferric import nn
from ferric.nn.utils import prune

RECORDING = Recording("prune", "prune_cases", "prune.json")
CASES = RECORDING.cases


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(
            _close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            _close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return isinstance(b, float) and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6) and (
            math.copysign(1, a) == math.copysign(1, b))
    return a == b


def _message(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", text).replace("torch", "LIB").replace(
        "ferric", "LIB")


def test_fixture_is_pytorch_2_13():
    RECORDING.check_complete()


@pytest.mark.parametrize("name", sorted(CASES))
def test_prune_matches_pytorch(name):
    want, got = RECORDING.replay(name, ferric)
    got = json.loads(json.dumps(got))
    got_buffers = got.get("buffers", {})
    for key, (dtype, _) in got_buffers.items():
        got_buffers[key][0] = dtype.replace("ferric", "torch")
    if "raised" in want:
        assert got.get("raised") == want["raised"], got
        assert _message(got["message"]) == _message(want["message"])
        assert got["params_after"] == want["params_after"]
        return
    assert "raised" not in got, got
    assert got.keys() == want.keys()
    for key in want:
        assert _close(want[key], got[key]), (key, want[key], got[key])


def test_forward_pre_hook_recomputes_and_grad_reaches_orig():
    m = nn.Linear(3, 2)
    prune.l1_unstructured(m, "weight", amount=2)
    with ferric.no_grad():
        m.weight_orig.fill_(2.0)
    out = m(ferric.ones(1, 3))
    assert m.weight.tolist() == (m.weight_mask * 2.0).tolist()
    out.sum().backward()
    assert m.weight_orig.grad.tolist() == m.weight_mask.tolist()
    assert m.weight_mask.grad is None


def test_failed_prune_leaves_the_module_unchanged():
    m = nn.Linear(3, 2)
    before = m.weight.detach().clone()
    with pytest.raises(ValueError):
        prune.l1_unstructured(m, "weight", amount=7)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    assert list(m.named_buffers()) == [] and not prune.is_pruned(m)
    assert isinstance(m.weight, nn.Parameter) and m.weight.tolist() == before.tolist()


def test_pruned_state_dict_round_trip():
    a = nn.Linear(4, 3)
    prune.l1_unstructured(a, "weight", amount=5)
    b = nn.Linear(4, 3)
    prune.identity(b, "weight")
    b.load_state_dict(a.state_dict())
    b(ferric.zeros(1, 4))
    assert b.weight.tolist() == a.weight.tolist()


def test_method_without_tensor_name_raises():
    with pytest.raises(AssertionError, match="has to be pruned"):
        prune.L1Unstructured(1).remove(nn.Linear(1, 1))


@pytest.mark.parametrize("amount", [0, 1, 5, 0.0, 0.3, 1.0])
def test_l1_prunes_the_smallest_magnitudes(amount):
    ferric.manual_seed(3)
    w = ferric.randn(4, 5)
    mask = prune.L1Unstructured(amount).compute_mask(w, ferric.ones_like(w))
    k = amount if isinstance(amount, int) else round(amount * 20)
    assert int((mask == 0).sum()) == k
    if 0 < k < 20:
        assert float(w.abs()[mask == 0].max()) <= float(w.abs()[mask == 1].min())
