"""nn.Module machinery: registration, traversal, state_dict / load_state_dict, modes,
conversion, hooks, reprs, copying/pickling, Parameter and the containers.

Expected strings (reprs, error messages, key orders) were produced by PyTorch 2.x and
checked by hand; ferric prints ``ferric.Size``/``ferric.int64`` where PyTorch prints
``torch.Size``/``torch.int64``.
"""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ferric
from ferric import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1d(2)
        self.register_buffer("steps", ferric.zeros(1), persistent=False)
        self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])

    def forward(self, x):
        return self.blocks[0](self.bn(self.fc(x)))


class Scale(nn.Module):
    """Elementwise module (its gradients need only elementwise autograd)."""

    def __init__(self, n=3):
        super().__init__()
        self.w = nn.Parameter(ferric.arange(1.0, n + 1.0, dtype=ferric.float64))

    def forward(self, x):
        return (x * self.w).tanh()


NET_REPR = """Net(
  (fc): Linear(in_features=3, out_features=2, bias=True)
  (bn): BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
  (blocks): ModuleList(
    (0): Linear(in_features=2, out_features=2, bias=True)
    (1): ReLU()
  )
)"""


def test_registration_and_traversal_order():
    n = Net()
    assert list(n.state_dict()) == [
        "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
        "bn.num_batches_tracked", "blocks.0.weight", "blocks.0.bias",
    ]
    assert [k for k, _ in n.named_parameters()] == [
        "fc.weight", "fc.bias", "bn.weight", "bn.bias", "blocks.0.weight", "blocks.0.bias"]
    assert [k for k, _ in n.named_buffers()] == [
        "steps", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    assert [k for k, _ in n.named_modules()] == ["", "fc", "bn", "blocks", "blocks.0", "blocks.1"]
    assert [k for k, _ in n.named_children()] == ["fc", "bn", "blocks"]
    assert [k for k, _ in n.named_parameters(prefix="m", recurse=False)] == []
    assert [k for k, _ in n.fc.named_parameters(prefix="m")] == ["m.weight", "m.bias"]
    assert len(list(n.parameters())) == 6 and len(list(n.buffers())) == 4
    assert len(list(n.children())) == 3 and len(list(n.modules())) == 6
    assert repr(n) == NET_REPR


def test_shared_parameters_and_modules():
    shared = nn.Linear(2, 2)
    s = nn.Sequential(shared, shared)
    assert len(list(s.parameters())) == 2
    assert len(list(s.named_parameters(remove_duplicate=False))) == 4
    assert len(list(s.named_modules())) == 2
    assert len(list(s.named_modules(remove_duplicate=False))) == 3
    assert list(s.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_setattr_getattr_delattr():
    n = Net()
    n.extra = nn.Parameter(ferric.ones(2))
    assert "extra" in n._parameters and n.extra is n._parameters["extra"]
    n.extra = None  # a registered parameter may be set to None
    assert n._parameters["extra"] is None and "extra" not in dict(n.named_parameters())
    n.buf = nn.Buffer(ferric.ones(1), persistent=False)
    assert "buf" in n._buffers and "buf" not in n.state_dict()
    n.steps = ferric.ones(1)  # re-assigning a buffer keeps it a (non-persistent) buffer
    assert n._buffers["steps"].tolist() == [1.0] and "steps" not in n.state_dict()
    n.plain = ferric.ones(1)  # a plain tensor is just an attribute
    assert "plain" not in n._buffers and "plain" in n.__dict__
    del n.fc
    assert "fc" not in n._modules
    n.fc = nn.Linear(3, 2)
    del n.steps
    assert "steps" not in n._buffers
    del n.plain
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        _ = n.nope
    keys = dir(n)
    assert {"fc", "bn", "blocks", "training", "forward"} <= set(keys)
    assert keys == sorted(keys)
    assert not any(k[0].isdigit() for k in dir(nn.ModuleList([nn.ReLU()])))


ERRORS = [
    (lambda n: setattr(n, "fc", 3), TypeError,
     "cannot assign 'int' as child module 'fc' (torch.nn.Module or None expected)"),
    (lambda n: setattr(n.fc, "weight", ferric.ones(2, 3)), TypeError,
     "cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None "
     "expected)"),
    (lambda n: n.register_buffer("fc", ferric.ones(1)), KeyError, "attribute 'fc' already exists"),
    (lambda n: n.register_buffer("a.b", ferric.ones(1)), KeyError, "buffer name can't contain"),
    (lambda n: n.register_buffer("", ferric.ones(1)), KeyError, "can't be empty string"),
    (lambda n: n.register_buffer(1, ferric.ones(1)), TypeError,
     "buffer name should be a string. Got int"),
    (lambda n: n.register_parameter("w", ferric.ones(1)), TypeError,
     "cannot assign 'torch.FloatTensor' object to parameter 'w' (torch.nn.Parameter or None "
     "required)"),
    (lambda n: n.register_parameter("w", nn.Parameter(ferric.ones(2)) * 1), TypeError,
     "object to parameter 'w'"),
    (lambda n: n.add_module("m", 3), TypeError, "int is not a Module subclass"),
    (lambda n: n.add_module("a.b", nn.ReLU()), KeyError, "module name can't contain"),
    (lambda n: n.register_buffer("b2", [1]), TypeError,
     "cannot assign 'list' object to buffer 'b2' (torch Tensor or None required)"),
    (lambda n: n.get_submodule("blocks.5"), AttributeError, "ModuleList has no attribute `5`"),
    (lambda n: n.get_submodule("fc.weight"), AttributeError, "`weight` is not an nn.Module"),
    (lambda n: n.get_parameter("fc.nope"), AttributeError, "Linear has no attribute `nope`"),
    (lambda n: n.get_parameter("bn.running_mean"), AttributeError,
     "`running_mean` is not an nn.Parameter"),
    (lambda n: n.get_buffer("fc.weight"), AttributeError, "`weight` is not a buffer"),
    (lambda n: n.train("yes"), ValueError, "training mode is expected to be boolean"),
    (lambda n: n.to(ferric.int64), TypeError,
     "nn.Module.to only accepts floating point or complex dtypes, but got desired "
     "dtype=ferric.int64"),
    (lambda n: n.to("cuda"), AssertionError, "Torch not compiled with CUDA enabled"),
    (lambda n: nn.Module()(1), NotImplementedError,
     'Module [Module] is missing the required "forward" function'),
    (lambda n: n.load_state_dict([1]), TypeError, "Expected state_dict to be dict-like"),
]


@pytest.mark.parametrize("call,exc,msg", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call(Net())
    assert msg in str(info.value.args[0])


def test_assign_before_init():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ferric.ones(1))

    with pytest.raises(AttributeError,
                       match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()


def test_get_submodule_parameter_buffer():
    n = Net()
    assert n.get_submodule("") is n
    assert n.get_submodule("blocks.0") is n.blocks[0]
    assert n.get_parameter("blocks.0.bias") is n.blocks[0].bias
    assert n.get_buffer("bn.running_var") is n.bn.running_var
    n.set_submodule("blocks.1", nn.Tanh())
    assert isinstance(n.blocks[1], nn.Tanh)


# ---------------------------------------------------------------------------- state dict


def test_state_dict_values_are_detached_views():
    m = nn.Linear(3, 2)
    sd = m.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not sd["weight"].requires_grad and type(sd["weight"]) is ferric.Tensor
    with ferric.no_grad():
        m.weight.fill_(2.0)
    assert sd["weight"].tolist() == [[2.0] * 3] * 2  # shares memory, like PyTorch
    kv = m.state_dict(keep_vars=True)
    assert kv["weight"] is m.weight
    assert list(m.state_dict(prefix="p.")) == ["p.weight", "p.bias"]


def test_state_dict_round_trip():
    ferric.manual_seed(0)
    a, b = Net(), Net()
    a.bn.running_mean.fill_(0.5)
    a.bn.num_batches_tracked.fill_(7)
    w = a.fc.weight
    res = b.load_state_dict(a.state_dict())
    assert repr(res) == "<All keys matched successfully>"
    assert res.missing_keys == [] and res.unexpected_keys == []
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert ka == kb and va.dtype == vb.dtype
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    assert a.fc.weight is w  # loading copies in place: parameter objects stay
    assert b.bn.num_batches_tracked.dtype == ferric.int64


def test_load_state_dict_strict_errors_load_nothing():
    ferric.manual_seed(0)
    n = Net()
    before = {k: v.clone() for k, v in n.state_dict().items()}
    good = Net().state_dict()
    bad = dict(good)
    bad["fc.weight"] = ferric.zeros(2, 4)
    del bad["bn.bias"]
    bad["extra.x"] = ferric.zeros(1)
    bad["fc.foo"] = ferric.ones(1)
    with pytest.raises(RuntimeError) as info:
        n.load_state_dict(bad)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "bn.bias". '
        '\n\tUnexpected key(s) in state_dict: "extra.x", "fc.foo". \n\tsize mismatch for '
        "fc.weight: copying a param with shape ferric.Size([2, 4]) from checkpoint, the shape "
        "in current model is ferric.Size([2, 3])."
    )
    # nothing was half-loaded, although e.g. fc.bias matched
    for k, v in n.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())
    # a size mismatch is an error even when not strict, and loads nothing either
    with pytest.raises(RuntimeError, match="size mismatch for fc.weight"):
        n.load_state_dict(bad, strict=False)
    for k, v in n.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())


def test_load_state_dict_non_strict():
    n = Net()
    sd = {k: v for k, v in Net().state_dict().items() if k != "bn.bias"}
    sd["zzz"] = ferric.ones(1)
    res = n.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["bn.bias"] and res.unexpected_keys == ["zzz"]
    assert repr(res) == "_IncompatibleKeys(missing_keys=['bn.bias'], unexpected_keys=['zzz'])"
    np.testing.assert_array_equal(n.fc.weight.detach().numpy(), sd["fc.weight"].numpy())


def test_load_state_dict_casts_and_assign():
    m = nn.Linear(2, 2)
    sd = {k: v.double() * 0 + 1 for k, v in m.state_dict().items()}
    m.load_state_dict(sd)
    assert m.weight.dtype == ferric.float32 and m.weight.tolist() == [[1.0, 1.0]] * 2
    w = m.weight
    m.load_state_dict({k: ferric.full_like(v, 3.0) for k, v in sd.items()}, assign=True)
    assert m.weight is not w and isinstance(m.weight, nn.Parameter)
    assert m.weight.requires_grad and m.weight.dtype == ferric.float64


def test_weighted_loss_buffer_in_state_dict():
    m = nn.CrossEntropyLoss(weight=ferric.ones(3))
    assert list(m.state_dict()) == ["weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    assert list(nn.BCEWithLogitsLoss(pos_weight=ferric.ones(2)).state_dict()) == ["pos_weight"]


# ---------------------------------------------------------------------------- modes


def test_train_eval_requires_grad_zero_grad_apply():
    n = Net()
    assert n.training and n.bn.training
    assert n.eval() is n
    assert not n.training and not n.blocks[1].training
    n.train()
    assert n.blocks[0].training
    n.requires_grad_(False)
    assert not any(p.requires_grad for p in n.parameters())
    n.requires_grad_()
    for p in n.parameters():
        p.grad = ferric.ones_like(p)
    n.zero_grad(set_to_none=False)
    assert all(p.grad is not None and float(p.grad.abs().sum()) == 0 for p in n.parameters())
    n.zero_grad()
    assert all(p.grad is None for p in n.parameters())
    seen = []
    assert n.apply(lambda m: seen.append(type(m).__name__)) is n
    assert seen == ["Linear", "BatchNorm1d", "Linear", "ReLU", "ModuleList", "Net"]


def test_to_double_float_keep_parameter_identity():
    n = Net()
    w = n.fc.weight
    n.fc.weight.grad = ferric.ones(2, 3)
    assert n.double() is n
    assert n.fc.weight is w and w.dtype == ferric.float64 and w.requires_grad
    assert w.grad.dtype == ferric.float64
    assert n.bn.running_mean.dtype == ferric.float64
    assert n.bn.num_batches_tracked.dtype == ferric.int64  # integers are left alone
    n.to(ferric.float32)
    assert w.dtype == ferric.float32
    n.to("cpu")
    n.to(ferric.zeros(1, dtype=ferric.float64))
    assert w.dtype == ferric.float64
    n.float()
    assert n.bn.running_var.dtype == ferric.float32


# ---------------------------------------------------------------------------- hooks


def test_forward_pre_and_forward_hooks():
    m = Scale()
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 2,)

    def pre_kw(mod, args, kwargs):
        calls.append("pre_kw")
        return args, kwargs

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_pre_hook(pre_kw, with_kwargs=True, prepend=True)
    h3 = m.register_forward_hook(post)
    x = ferric.ones(3, dtype=ferric.float64)
    out = m(x)
    assert calls == ["pre_kw", "pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), np.tanh(2 * np.arange(1, 4)) + 1)
    for h in (h1, h2, h3):
        h.remove()
    calls.clear()
    np.testing.assert_allclose(m(x).detach().numpy(), np.tanh(np.arange(1, 4)))
    assert calls == []
    with m.register_forward_hook(lambda *a: calls.append("ctx")):
        m(x)
    m(x)
    assert calls == ["ctx"]


def test_forward_hook_always_call_and_bad_pre_hook_return():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        m(1)
    assert seen == [None]
    s = Scale()
    s.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        s(ferric.ones(3, dtype=ferric.float64))


def test_full_backward_hook_sees_and_replaces_grads():
    m = Scale()
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["gi"] = [g.clone() for g in grad_input]
        seen["go"] = [g.clone() for g in grad_output]
        return (grad_input[0] * 10,)

    pre_seen = []
    h = m.register_full_backward_hook(hook)
    m.register_full_backward_pre_hook(lambda mod, go: pre_seen.append(go[0].clone()))
    x = ferric.tensor([0.1, 0.2, 0.3], dtype=ferric.float64, requires_grad=True)
    g_out = ferric.tensor([1.0, 2.0, 3.0], dtype=ferric.float64)
    m(x).backward(g_out)
    w = np.arange(1.0, 4.0)
    xv = np.array([0.1, 0.2, 0.3])
    dx = (1 - np.tanh(xv * w) ** 2) * w * g_out.numpy()
    np.testing.assert_allclose(seen["go"][0].numpy(), g_out.numpy())
    np.testing.assert_allclose(pre_seen[0].numpy(), g_out.numpy())
    np.testing.assert_allclose(seen["gi"][0].numpy(), dx)
    np.testing.assert_allclose(x.grad.numpy(), 10 * dx)  # the hook's replacement
    np.testing.assert_allclose(m.w.grad.numpy(), (1 - np.tanh(xv * w) ** 2) * xv * g_out.numpy())
    h.remove()
    x.grad = None
    m(x).backward(g_out)
    np.testing.assert_allclose(x.grad.numpy(), dx)


def test_full_backward_hook_without_input_grad():
    m = Scale()
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go[0].shape)))
    out = m(ferric.ones(3, dtype=ferric.float64))
    out.backward(ferric.ones(3, dtype=ferric.float64))
    assert seen[-1][0] == (None,)
    assert tuple(seen[-1][1]) == (3,)


# ---------------------------------------------------------------------------- copying


def test_deepcopy_and_pickle_modules():
    ferric.manual_seed(0)
    n = Net()
    n.bn.running_mean.fill_(0.25)
    n.fc.weight.grad = ferric.ones(2, 3)
    for clone in (copy.deepcopy(n), pickle.loads(pickle.dumps(n))):
        assert type(clone) is Net and repr(clone) == NET_REPR
        assert clone.fc.weight is not n.fc.weight
        assert isinstance(clone.fc.weight, nn.Parameter) and clone.fc.weight.requires_grad
        for (k, a), (_, b) in zip(n.state_dict().items(), clone.state_dict().items(),
                                  strict=True):
            np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
        with ferric.no_grad():
            clone.fc.weight.fill_(9.0)
        assert float(n.fc.weight[0, 0]) != 9.0  # independent storage
    shared = nn.Linear(2, 2)
    s = copy.deepcopy(nn.Sequential(shared, shared))
    assert s[0] is s[1] and s[0].weight is s[1].weight  # the memo keeps sharing


def test_parameter_basics():
    data = ferric.ones(2)
    p = nn.Parameter(data)
    assert isinstance(p, ferric.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert repr(nn.Parameter(ferric.ones(2), requires_grad=False)) == \
        "Parameter containing:\ntensor([1., 1.])"
    with ferric.no_grad():
        data.fill_(3.0)
    assert p.tolist() == [3.0, 3.0]  # shares memory with data
    y = p * 2
    assert type(y) is ferric.Tensor and y.grad_fn is not None
    assert type(p.data) is ferric.Tensor
    assert nn.Parameter().shape == (0,)
    with ferric.no_grad():
        assert nn.Parameter(ferric.ones(1)).requires_grad
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.tolist() == [3.0, 3.0] and q.requires_grad
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and r.tolist() == [3.0, 3.0]
    t = pickle.loads(pickle.dumps(ferric.tensor([[1, 2]])))
    assert t.dtype == ferric.int64 and t.tolist() == [[1, 2]]
    with pytest.raises(TypeError):
        nn.Parameter([1.0])


def test_buffer_marker():
    b = nn.Buffer(ferric.ones(2))
    assert isinstance(b, nn.Buffer) and isinstance(b, ferric.Tensor)
    assert not isinstance(ferric.ones(2), nn.Buffer)
    m = nn.Module()
    m.b = b
    assert "b" in m._buffers and "b" in m.state_dict()


# ---------------------------------------------------------------------------- containers


def test_sequential():
    s = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Tanh())
    del s[1]
    assert list(s._modules) == ["0", "1"] and isinstance(s[1], nn.Tanh)
    s.insert(0, nn.Sigmoid())
    assert isinstance(s[0], nn.Sigmoid) and isinstance(s[-1], nn.Tanh)
    assert isinstance(s[1:], nn.Sequential) and len(s[1:]) == 2
    assert len(s + s) == 6
    s.append(nn.ReLU()).extend([nn.ReLU()])
    assert len(s) == 5 and isinstance(s.pop(0), nn.Sigmoid) and len(s) == 4
    s[0] = nn.Identity()
    assert isinstance(s[0], nn.Identity)
    with pytest.raises(IndexError, match="index 7 is out of range"):
        s[7]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential"):
        s + 3
    od = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert list(od._modules) == ["a", "b"] and isinstance(od.b, nn.Tanh)
    x = ferric.tensor([-1.0, 0.5])
    np.testing.assert_allclose(od(x).numpy(), np.tanh([0.0, 0.5]), rtol=1e-6)
    assert len(nn.Sequential(nn.ReLU()) * 3) == 3
    assert repr(nn.Sequential()) == "Sequential()"


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["ReLU", "Sigmoid", "Tanh"]
    del ml[0]
    assert isinstance(ml[-1], nn.Tanh) and len(ml + ml) == 4
    ml += [nn.ReLU()]
    assert len(ml) == 3 and isinstance(ml[1:], nn.ModuleList)
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        nn.ModuleList(3)
    with pytest.raises(NotImplementedError):
        ml(1)
    assert repr(nn.ModuleList([nn.Linear(2, 2)] * 2 + [nn.ReLU()])) == (
        "ModuleList(\n  (0-1): 2 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (2): ReLU()\n)")
    md = nn.ModuleDict([("b", nn.ReLU()), ("a", nn.Tanh())])
    assert list(md.keys()) == ["b", "a"] and "a" in md
    assert isinstance(md.pop("a"), nn.Tanh) and len(md) == 1
    md.update({"c": nn.Sigmoid()})
    assert list(md) == ["b", "c"] and isinstance(md["c"], nn.Sigmoid)
    with pytest.raises(ValueError, match="has length 3; 2 is required"):
        md.update([("x", nn.ReLU(), 1)])


def test_parameter_list_and_dict():
    pl = nn.ParameterList([ferric.ones(1)])
    pl.append(ferric.zeros(2, dtype=ferric.float64))
    assert type(pl[1]) is nn.Parameter and len(pl) == 2
    assert [k for k, _ in pl.named_parameters()] == ["0", "1"]
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [ferric.float32 of size 1]"
                        "\n    (1): Parameter containing: [ferric.float64 of size 2]\n)")
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl(1)
    pd = nn.ParameterDict({"z": ferric.ones(1), "a": ferric.ones(2)})
    assert list(pd.keys()) == ["a", "z"]  # a plain dict is inserted in sorted order
    assert [k for k, _ in pd.named_parameters()] == ["a", "z"]
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of "
                        "size 2]\n    (z): Parameter containing: [torch.FloatTensor of size 1]\n)")
    pd["b"] = ferric.zeros(3)
    assert isinstance(pd["b"], nn.Parameter) and "b" in pd and pd.get("q") is None
    del pd["a"]
    assert list(pd) == ["z", "b"] and len(pd) == 2
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key"):
        pd[1]
