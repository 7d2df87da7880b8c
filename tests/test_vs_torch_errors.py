"""Error parity with PyTorch: bad inputs to layers, losses, state-dict loading,
optimizers, schedulers, init and data utilities raise the same exception type as in
PyTorch, with the same message (``torch.`` read as ``ferric.``) or, where noted, a
shared key fragment."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch_compat import as_lib  # noqa: E402

import ferric  # noqa: E402

EXACT = None


def x(lib, *shape, dtype="float32"):
    return as_lib(lib, np.ones(shape, dtype=dtype))


def sd_of(lib, **shapes):
    return {k: x(lib, *s) for k, s in shapes.items()}


def _opt_params(lib):
    return [as_lib(lib, np.ones(2), requires_grad=True)]


def _sgd(lib):
    return lib.optim.SGD(_opt_params(lib), lr=0.1)


def _required(lib):
    if lib is torch:
        from torch.optim.optimizer import required
    else:
        from ferric.optim.optimizer import required
    return required


def _sched(name, *args, **kwargs):
    return lambda lib: getattr(lib.optim.lr_scheduler, name)(_sgd(lib), *args, **kwargs)


class _Net:
    """A module whose __init__ assigns a submodule before Module.__init__."""

    @staticmethod
    def early(lib):
        class Early(lib.nn.Module):
            def __init__(self):
                self.fc = lib.nn.Linear(1, 1)

        return Early()


CASES = [
    # -- layers -------------------------------------------------------------------------
    ("Linear-in_features", lambda lib: lib.nn.Linear(3, 2)(x(lib, 4, 5)), EXACT),
    ("Linear-1d-in_features", lambda lib: lib.nn.Linear(3, 2)(x(lib, 5)), EXACT),
    ("Bilinear-in2", lambda lib: lib.nn.Bilinear(3, 4, 2)(x(lib, 5, 3), x(lib, 5, 3)),
     EXACT),
    ("Conv2d-channels", lambda lib: lib.nn.Conv2d(3, 6, 3)(x(lib, 2, 4, 7, 7)), EXACT),
    ("Conv1d-channels", lambda lib: lib.nn.Conv1d(3, 6, 3)(x(lib, 2, 4, 7)), EXACT),
    ("Conv2d-groups-channels", lambda lib: lib.nn.Conv2d(4, 6, 3, groups=2)(
        x(lib, 1, 6, 5, 5)), EXACT),
    ("Conv2d-kernel-too-big", lambda lib: lib.nn.Conv2d(1, 1, 3)(x(lib, 1, 1, 2, 2)), EXACT),
    ("Conv2d-dims", lambda lib: lib.nn.Conv2d(1, 1, 3)(x(lib, 5)), EXACT),
    ("Conv1d-dims", lambda lib: lib.nn.Conv1d(1, 1, 3)(x(lib, 1, 1, 5, 5)), EXACT),
    ("Conv-groups-divisible", lambda lib: lib.nn.Conv2d(3, 6, 3, groups=2), EXACT),
    ("Conv-out-groups-divisible", lambda lib: lib.nn.Conv2d(4, 5, 3, groups=2), EXACT),
    ("Conv-groups-zero", lambda lib: lib.nn.Conv2d(4, 4, 3, groups=0), EXACT),
    # the messages print a set, whose order varies between processes
    ("Conv-padding-string", lambda lib: lib.nn.Conv2d(1, 1, 3, padding="full"),
     "Invalid padding string 'full', should be one of"),
    ("Conv-same-strided", lambda lib: lib.nn.Conv2d(1, 1, 3, padding="same", stride=2),
     EXACT),
    ("Conv-padding-mode", lambda lib: lib.nn.Conv2d(1, 1, 3, padding_mode="mirror"),
     "padding_mode must be one of"),
    ("ConvT-padding-mode", lambda lib: lib.nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect"),
     EXACT),
    ("ConvT-channels", lambda lib: lib.nn.ConvTranspose2d(3, 2, 3)(x(lib, 1, 2, 4, 4)),
     EXACT),
    ("ConvT-output_size", lambda lib: lib.nn.ConvTranspose2d(1, 1, 3, stride=2)(
        x(lib, 1, 1, 4, 4), output_size=[20, 20]), "requested an output size of"),
    ("MaxPool2d-pad", lambda lib: lib.nn.MaxPool2d(2, padding=2)(x(lib, 1, 1, 6, 6)), EXACT),
    ("MaxPool2d-too-small", lambda lib: lib.nn.MaxPool2d(3)(x(lib, 1, 1, 2, 2)), EXACT),
    ("MaxPool2d-dims", lambda lib: lib.nn.MaxPool2d(2)(x(lib, 4, 4)), EXACT),
    ("AvgPool2d-pad", lambda lib: lib.nn.AvgPool2d(2, padding=2)(x(lib, 1, 1, 6, 6)), EXACT),
    ("AvgPool2d-divisor0", lambda lib: lib.nn.AvgPool2d(2, divisor_override=0)(
        x(lib, 1, 1, 4, 4)), EXACT),
    ("AdaptiveAvgPool2d-dims", lambda lib: lib.nn.AdaptiveAvgPool2d(2)(x(lib, 4)),
     "adaptive_avg_pool2d"),
    ("BatchNorm1d-dims", lambda lib: lib.nn.BatchNorm1d(3)(x(lib, 2, 3, 4, 5)), EXACT),
    ("BatchNorm2d-dims", lambda lib: lib.nn.BatchNorm2d(3)(x(lib, 2, 3, 4)), EXACT),
    ("BatchNorm2d-channels", lambda lib: lib.nn.BatchNorm2d(3)(x(lib, 2, 4, 3, 3)), EXACT),
    ("BatchNorm1d-one-per-channel", lambda lib: lib.nn.BatchNorm1d(3)(x(lib, 1, 3)), EXACT),
    ("InstanceNorm1d-dims", lambda lib: lib.nn.InstanceNorm1d(3)(x(lib, 2, 3, 4, 5)), EXACT),
    ("LayerNorm-shape", lambda lib: lib.nn.LayerNorm(5)(x(lib, 3, 4)), EXACT),
    ("GroupNorm-divisible", lambda lib: lib.nn.GroupNorm(3, 4), EXACT),
    ("GroupNorm-channels", lambda lib: lib.nn.GroupNorm(2, 4)(x(lib, 2, 6, 3)), EXACT),
    ("Embedding-index", lambda lib: lib.nn.Embedding(5, 2)(
        as_lib(lib, np.array([1, 5]))), EXACT),
    ("Embedding-negative-index", lambda lib: lib.nn.Embedding(5, 2)(
        as_lib(lib, np.array([-1]))), EXACT),
    ("Embedding-float-index", lambda lib: lib.nn.Embedding(5, 2)(x(lib, 2)),
     "Expected tensor for argument #1 'indices' to have one of the following scalar types"),
    ("Embedding-padding_idx", lambda lib: lib.nn.Embedding(5, 2, padding_idx=5), EXACT),
    ("Embedding-pretrained-dims", lambda lib: lib.nn.Embedding.from_pretrained(x(lib, 3)),
     EXACT),
    ("Dropout-p", lambda lib: lib.nn.Dropout(1.5), EXACT),
    ("Dropout-p-neg", lambda lib: lib.nn.Dropout2d(-0.1), EXACT),
    ("Softmax2d-dims", lambda lib: lib.nn.Softmax2d()(x(lib, 3, 4)), "Softmax2d"),
    ("Hardtanh-range", lambda lib: lib.nn.Hardtanh(1.0, 0.5), EXACT),
    ("GLU-odd", lambda lib: lib.nn.GLU()(x(lib, 2, 3)), EXACT),
    ("PReLU-channels", lambda lib: lib.nn.PReLU(3)(x(lib, 2, 4)), EXACT),
    ("Unflatten-type", lambda lib: lib.nn.Unflatten(1, 4), EXACT),
    ("Unflatten-size", lambda lib: lib.nn.Unflatten(1, (2, 3))(x(lib, 2, 5)), EXACT),
    ("Flatten-dims", lambda lib: lib.nn.Flatten(3)(x(lib, 2, 3)), EXACT),
    ("Fold-blocks", lambda lib: lib.nn.Fold((4, 4), 2)(x(lib, 1, 4, 5)), EXACT),
    ("RNN-input_size", lambda lib: lib.nn.RNN(4, 5)(x(lib, 6, 3, 3)), EXACT),
    ("RNN-dims", lambda lib: lib.nn.GRU(4, 5)(x(lib, 6, 3, 4, 1)), EXACT),
    ("RNN-hidden", lambda lib: lib.nn.RNN(4, 5)(x(lib, 6, 3, 4), x(lib, 1, 2, 5)), EXACT),
    ("GRU-hidden-dims", lambda lib: lib.nn.GRU(4, 5)(x(lib, 6, 3, 4), x(lib, 3, 5)), EXACT),
    ("LSTM-hidden", lambda lib: lib.nn.LSTM(4, 5)(
        x(lib, 6, 3, 4), (x(lib, 1, 3, 5), x(lib, 1, 2, 5))), EXACT),
    ("LSTM-proj-too-big", lambda lib: lib.nn.LSTM(4, 5, proj_size=5), EXACT),
    ("RNN-proj", lambda lib: lib.nn.GRU(4, 5, proj_size=2), EXACT),
    ("RNN-nonlinearity", lambda lib: lib.nn.RNN(4, 5, nonlinearity="gelu"), EXACT),
    ("RNN-dropout", lambda lib: lib.nn.LSTM(4, 5, dropout=2.0), EXACT),
    ("RNN-hidden-size", lambda lib: lib.nn.LSTM(4, 0), EXACT),
    ("RNN-hidden-size-type", lambda lib: lib.nn.LSTM(4, 2.5), EXACT),
    ("RNN-num-layers", lambda lib: lib.nn.LSTM(4, 3, num_layers=0), EXACT),
    ("RNNCell-dims", lambda lib: lib.nn.GRUCell(4, 5)(x(lib, 2, 3, 4)), EXACT),
    ("RNNCell-input", lambda lib: lib.nn.RNNCell(4, 5)(x(lib, 3, 3)), EXACT),
    ("RNNCell-hidden-size", lambda lib: lib.nn.RNNCell(4, 5)(x(lib, 3, 4), x(lib, 3, 4)),
     EXACT),
    ("RNNCell-hidden-batch", lambda lib: lib.nn.RNNCell(4, 5)(x(lib, 3, 4), x(lib, 2, 6)),
     EXACT),
    ("RNNCell-hidden-1d", lambda lib: lib.nn.RNNCell(4, 5)(x(lib, 3, 4), x(lib, 5)), EXACT),
    ("RNNCell-unbatched-2d-hidden", lambda lib: lib.nn.RNNCell(4, 5)(x(lib, 4), x(lib, 2, 5)),
     EXACT),
    ("RNNCell-nonlinearity", lambda lib: lib.nn.RNNCell(4, 5, nonlinearity="gelu")(
        x(lib, 3, 4)), EXACT),
    ("LSTMCell-hidden1-batch", lambda lib: lib.nn.LSTMCell(4, 5)(
        x(lib, 3, 4), (x(lib, 3, 5), x(lib, 2, 5))), EXACT),
    ("LSTMCell-hidden0-size", lambda lib: lib.nn.LSTMCell(4, 5)(
        x(lib, 3, 4), (x(lib, 3, 6), x(lib, 5))), EXACT),
    ("LSTMCell-hidden1-dims", lambda lib: lib.nn.LSTMCell(4, 5)(
        x(lib, 4), (x(lib, 5), x(lib, 3, 5))), EXACT),
    ("LSTMCell-hx-tensor", lambda lib: lib.nn.LSTMCell(4, 5)(x(lib, 4), x(lib, 5)), EXACT),
    ("LSTMCell-one-state", lambda lib: lib.nn.LSTMCell(4, 5)(x(lib, 2, 4), (x(lib, 2, 5),)),
     EXACT),
    ("GRUCell-input", lambda lib: lib.nn.GRUCell(4, 5)(x(lib, 3, 3)), EXACT),
    ("GRUCell-hidden-dims", lambda lib: lib.nn.GRUCell(4, 5)(x(lib, 3, 4), x(lib, 3, 5, 1)),
     EXACT),
    ("MHA-divisible", lambda lib: lib.nn.MultiheadAttention(6, 4), EXACT),
    ("MHA-embed", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 3, 2, 5), x(lib, 3, 2, 5), x(lib, 3, 2, 5)), EXACT),
    ("MHA-mask-shape", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 3, 2, 4), x(lib, 5, 2, 4), x(lib, 5, 2, 4), attn_mask=x(lib, 3, 3)), EXACT),
    ("MHA-kpm-shape", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 3, 2, 4), x(lib, 5, 2, 4), x(lib, 5, 2, 4),
        key_padding_mask=x(lib, 2, 4, dtype="bool")), EXACT),
    ("MHA-causal-no-mask", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 3, 2, 4), x(lib, 3, 2, 4), x(lib, 3, 2, 4), is_causal=True, need_weights=True),
     EXACT),
    ("Transformer-activation", lambda lib: lib.nn.TransformerEncoderLayer(
        4, 2, activation="tanh"), EXACT),
    # ferric prefixes the core op's name (a project rule)
    ("Linear-negative", lambda lib: lib.nn.Linear(-1, 3),
     "Trying to create tensor with negative dimension -1: [3, -1]"),
    ("MaxPool2d-kernel0", lambda lib: lib.nn.MaxPool2d(0)(x(lib, 1, 1, 4, 4)), EXACT),
    ("MaxPool2d-stride0", lambda lib: lib.nn.MaxPool2d(2, stride=0)(x(lib, 1, 1, 4, 4)),
     EXACT),
    ("AvgPool2d-stride0", lambda lib: lib.nn.AvgPool2d(2, stride=0)(x(lib, 1, 1, 4, 4)),
     EXACT),
    ("AvgPool2d-too-small", lambda lib: lib.nn.AvgPool2d(3)(x(lib, 1, 1, 2, 2)), EXACT),
    ("Dropout-p-type", lambda lib: lib.nn.Dropout("0.5"), EXACT),
    ("Flatten-order", lambda lib: lib.nn.Flatten(2, 1)(x(lib, 2, 3, 4)),
     "flatten() has invalid args: start_dim cannot come after end_dim"),
    ("Unflatten-two-inferred", lambda lib: lib.nn.Unflatten(1, (2, -1, -1))(x(lib, 2, 12)),
     "only one dimension can be inferred"),
    ("Softmax-dim", lambda lib: lib.nn.Softmax(dim=5)(x(lib, 2, 3)), EXACT),
    ("LogSoftmax-dim", lambda lib: lib.nn.LogSoftmax(dim=-3)(x(lib, 2, 3)), EXACT),
    ("MHA-key-dims", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 3, 2, 4), x(lib, 3, 4), x(lib, 3, 4)), EXACT),
    ("MHA-query-dims", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 4), x(lib, 4), x(lib, 4)), EXACT),
    ("MHA-kv-len", lambda lib: lib.nn.MultiheadAttention(4, 2)(
        x(lib, 3, 2, 4), x(lib, 5, 2, 4), x(lib, 4, 2, 4)), EXACT),
    ("Encoder-d_model", lambda lib: lib.nn.TransformerEncoderLayer(4, 2, 8)(x(lib, 3, 2, 5)),
     EXACT),
    ("Transformer-batch", lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(
        x(lib, 3, 2, 4), x(lib, 3, 3, 4)), EXACT),
    ("Transformer-d_model", lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(
        x(lib, 3, 2, 5), x(lib, 3, 2, 5)), EXACT),
    ("Embedding-2d-weight", lambda lib: lib.nn.Embedding(3, 2, _weight=x(lib, 2, 2)), EXACT),
    ("BatchNorm-eval-noStats-1", lambda lib: lib.nn.BatchNorm1d(
        3, track_running_stats=False).eval()(x(lib, 1, 3)), EXACT),
    ("LSTM-batchfirst-hx", lambda lib: lib.nn.LSTM(4, 5, batch_first=True)(
        x(lib, 3, 6, 4), (x(lib, 1, 6, 5), x(lib, 1, 6, 5))), EXACT),
    ("RNN-packed-hx", lambda lib: lib.nn.GRU(4, 5)(lib.nn.utils.rnn.pack_sequence(
        [x(lib, 3, 4), x(lib, 2, 4)]), x(lib, 1, 3, 5)), EXACT),
    # -- losses -------------------------------------------------------------------------
    ("CE-target-bounds", lambda lib: lib.nn.CrossEntropyLoss()(
        x(lib, 3, 5), as_lib(lib, np.array([0, 5, 1]))), EXACT),
    ("CE-batch", lambda lib: lib.nn.CrossEntropyLoss()(
        x(lib, 3, 5), as_lib(lib, np.array([0, 1]))), EXACT),
    ("CE-float-target-shape", lambda lib: lib.nn.CrossEntropyLoss()(x(lib, 3, 5),
                                                                       x(lib, 3, 4)),
     EXACT),
    ("NLL-target-bounds", lambda lib: lib.nn.NLLLoss()(
        x(lib, 3, 5), as_lib(lib, np.array([0, -1, 1]))), EXACT),
    ("NLL-dims", lambda lib: lib.nn.NLLLoss()(
        x(lib, 3, 5, 2), as_lib(lib, np.array([0, 1, 1]))), EXACT),
    # ferric names the op and the shapes around PyTorch's sentence (a project rule)
    ("MSE-broadcast", lambda lib: lib.nn.MSELoss()(x(lib, 2, 3), x(lib, 2, 4)),
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
     "dimension 1"),
    ("BCE-range", lambda lib: lib.nn.BCELoss()(x(lib, 3) * 2, x(lib, 3)), EXACT),
    ("BCE-size", lambda lib: lib.nn.BCELoss()(x(lib, 3, 1) * 0.5, x(lib, 3)), EXACT),
    ("BCELogits-size", lambda lib: lib.nn.BCEWithLogitsLoss()(x(lib, 3, 1), x(lib, 3)),
     EXACT),
    ("Loss-reduction", lambda lib: lib.nn.L1Loss(reduction="avg")(x(lib, 3), x(lib, 3)),
     EXACT),
    ("KLDiv-reduction", lambda lib: lib.nn.KLDivLoss(reduction="mean_all")(x(lib, 3),
                                                                          x(lib, 3)),
     EXACT),
    ("GaussianNLL-var", lambda lib: lib.nn.GaussianNLLLoss()(
        x(lib, 3), x(lib, 3), -x(lib, 3)), EXACT),
    ("GaussianNLL-var-shape", lambda lib: lib.nn.GaussianNLLLoss()(
        x(lib, 3, 2), x(lib, 3, 2), x(lib, 4)), EXACT),
    # -- state dicts and module registration --------------------------------------------
    ("load-missing", lambda lib: lib.nn.Linear(2, 3).load_state_dict(
        sd_of(lib, weight=(3, 2))), EXACT),
    ("load-unexpected", lambda lib: lib.nn.Linear(2, 3).load_state_dict(
        sd_of(lib, weight=(3, 2), bias=(3,), extra=(1,))), EXACT),
    ("load-shape", lambda lib: lib.nn.Linear(2, 3).load_state_dict(
        sd_of(lib, weight=(3, 3), bias=(3,))), EXACT),
    ("load-all", lambda lib: lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
     .load_state_dict(sd_of(lib, **{"0.weight": (2, 2), "1.weight": (3,), "1.bias": (3,),
                                    "1.running_mean": (3,), "2.weight": (1,)})), EXACT),
    ("load-not-tensor", lambda lib: lib.nn.Linear(1, 1).load_state_dict(
        {"weight": 1.0, "bias": x(lib, 1)}), EXACT),
    ("load-not-mapping", lambda lib: lib.nn.Linear(1, 1).load_state_dict([1, 2]), EXACT),
    ("param-name-dot", lambda lib: lib.nn.Linear(1, 1).register_parameter("a.b", None),
     EXACT),
    ("param-name-empty", lambda lib: lib.nn.Linear(1, 1).register_parameter("", None),
     EXACT),
    ("param-name-exists", lambda lib: lib.nn.Linear(1, 1).register_parameter(
        "in_features", None), EXACT),
    ("param-not-parameter", lambda lib: lib.nn.Linear(1, 1).register_parameter(
        "p", x(lib, 1)), EXACT),
    ("assign-to-param", lambda lib: setattr(lib.nn.Linear(1, 1), "weight", 3), EXACT),
    ("buffer-name-dot", lambda lib: lib.nn.Linear(1, 1).register_buffer("a.b", None),
     EXACT),
    ("buffer-not-tensor", lambda lib: lib.nn.Linear(1, 1).register_buffer("b", 3), EXACT),
    ("add-module-not-module", lambda lib: lib.nn.Linear(1, 1).add_module("m", 3), EXACT),
    ("module-before-init", lambda lib: _Net.early(lib), EXACT),
    ("getattr-missing", lambda lib: lib.nn.Linear(1, 1).foo, EXACT),
    ("get_submodule-missing", lambda lib: lib.nn.Sequential(lib.nn.Linear(1, 1))
     .get_submodule("0.foo"), EXACT),
    ("get_parameter-missing", lambda lib: lib.nn.Linear(1, 1).get_parameter("foo"), EXACT),
    ("Sequential-index", lambda lib: lib.nn.Sequential(lib.nn.ReLU())[3], EXACT),
    ("ModuleList-index", lambda lib: lib.nn.ModuleList([lib.nn.ReLU()])[2], EXACT),
    ("forward-missing", lambda lib: lib.nn.Module()(x(lib, 1)), EXACT),
    # -- optimizers and schedulers ------------------------------------------------------
    ("SGD-lr", lambda lib: lib.optim.SGD(_opt_params(lib), lr=-0.1), EXACT),
    ("SGD-momentum", lambda lib: lib.optim.SGD(_opt_params(lib), lr=0.1, momentum=-1),
     EXACT),
    ("SGD-wd", lambda lib: lib.optim.SGD(_opt_params(lib), lr=0.1, weight_decay=-1), EXACT),
    ("SGD-nesterov", lambda lib: lib.optim.SGD(_opt_params(lib), lr=0.1, nesterov=True),
     EXACT),
    ("Adam-lr", lambda lib: lib.optim.Adam(_opt_params(lib), lr=-1.0), EXACT),
    ("Adam-beta0", lambda lib: lib.optim.Adam(_opt_params(lib), betas=(1.0, 0.9)), EXACT),
    ("Adam-beta1", lambda lib: lib.optim.Adam(_opt_params(lib), betas=(0.9, -0.1)), EXACT),
    ("Adam-eps", lambda lib: lib.optim.Adam(_opt_params(lib), eps=-1e-8), EXACT),
    ("AdamW-wd", lambda lib: lib.optim.AdamW(_opt_params(lib), weight_decay=-0.1), EXACT),
    ("RMSprop-alpha", lambda lib: lib.optim.RMSprop(_opt_params(lib), alpha=-0.1), EXACT),
    ("RMSprop-momentum", lambda lib: lib.optim.RMSprop(_opt_params(lib), momentum=-0.1),
     EXACT),
    ("Adagrad-lr_decay", lambda lib: lib.optim.Adagrad(_opt_params(lib), lr_decay=-0.1),
     EXACT),
    ("Adagrad-init-acc", lambda lib: lib.optim.Adagrad(
        _opt_params(lib), initial_accumulator_value=-0.1), EXACT),
    ("Optim-empty", lambda lib: lib.optim.SGD([], lr=0.1), EXACT),
    ("Optim-tensor-params", lambda lib: lib.optim.SGD(x(lib, 2), lr=0.1), EXACT),
    ("Optim-non-leaf", lambda lib: lib.optim.SGD([_opt_params(lib)[0] * 2], lr=0.1), EXACT),
    ("Optim-not-tensor", lambda lib: lib.optim.SGD([1.0], lr=0.1), EXACT),
    ("Optim-dup-groups", lambda lib: (lambda p: lib.optim.SGD(
        [{"params": p}, {"params": p}], lr=0.1))(_opt_params(lib)), EXACT),
    ("Optim-required-lr", lambda lib: lib.optim.Optimizer(
        _opt_params(lib), {"lr": _required(lib)}), EXACT),
    ("Optim-load-groups", lambda lib: _sgd(lib).load_state_dict(
        {"state": {}, "param_groups": []}), EXACT),
    ("Optim-load-group-size", lambda lib: _sgd(lib).load_state_dict(
        {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}), EXACT),
    ("Sched-not-optimizer", lambda lib: lib.optim.lr_scheduler.StepLR(object(), 2), EXACT),
    ("Sched-resume-initial-lr", _sched("StepLR", 2, last_epoch=3), EXACT),
    ("OneCycle-no-steps", _sched("OneCycleLR", 1.0), EXACT),
    ("OneCycle-steps", _sched("OneCycleLR", 1.0, total_steps=-1), EXACT),
    ("OneCycle-pct", _sched("OneCycleLR", 1.0, total_steps=10, pct_start=1.5), EXACT),
    ("OneCycle-anneal", _sched("OneCycleLR", 1.0, total_steps=10, anneal_strategy="exp"),
     EXACT),
    ("OneCycle-beyond", lambda lib: [s.step() for s in [_sched(
        "OneCycleLR", 1.0, total_steps=3)(lib)] for _ in range(4)], EXACT),
    ("OneCycle-momentum", lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        lib.optim.Adagrad(_opt_params(lib)), 1.0, total_steps=5), EXACT),
    ("Plateau-factor", _sched("ReduceLROnPlateau", factor=1.0), EXACT),
    ("Plateau-mode", _sched("ReduceLROnPlateau", mode="maximum"), EXACT),
    ("Plateau-threshold-mode", _sched("ReduceLROnPlateau", threshold_mode="relative"),
     EXACT),
    ("Plateau-min-lr", _sched("ReduceLROnPlateau", min_lr=[0.1, 0.2]), EXACT),
    ("LambdaLR-count", _sched("LambdaLR", [lambda e: 1.0, lambda e: 1.0]), EXACT),
    ("ConstantLR-factor", _sched("ConstantLR", factor=1.5), EXACT),
    ("LinearLR-start", _sched("LinearLR", start_factor=0.0), EXACT),
    ("CyclicLR-mode", _sched("CyclicLR", 0.01, 0.1, mode="sawtooth"), EXACT),
    ("CyclicLR-momentum", lambda lib: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adagrad(_opt_params(lib)), 0.01, 0.1), EXACT),
    ("CyclicLR-max_lr-count", _sched("CyclicLR", 0.01, [0.1, 0.2]), EXACT),
    ("CAWR-T_0", _sched("CosineAnnealingWarmRestarts", 0), EXACT),
    ("CAWR-T_mult", _sched("CosineAnnealingWarmRestarts", 2, T_mult=0), EXACT),
    ("CAWR-T_0-float", _sched("CosineAnnealingWarmRestarts", 2.5), EXACT),
    ("CAWR-eta_min", _sched("CosineAnnealingWarmRestarts", 2, eta_min="0"), EXACT),
    ("CAWR-negative-epoch", lambda lib: _sched("CosineAnnealingWarmRestarts", 2)(lib).step(-1),
     EXACT),
    # -- utilities ----------------------------------------------------------------------
    ("clip-nonfinite", lambda lib: lib.nn.utils.clip_grad_norm_(
        [_with_grad(lib, np.array([np.nan]))], 1.0, error_if_nonfinite=True), EXACT),
    ("vector_to_parameters-type", lambda lib: lib.nn.utils.vector_to_parameters(
        [1.0], _opt_params(lib)), EXACT),
    ("pack-unsorted", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(
        x(lib, 5, 3), [2, 5, 1]), EXACT),
    ("pack-zero-length", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(
        x(lib, 5, 3), [5, 2, 0]), EXACT),
    ("pack-lengths-count", lambda lib: lib.nn.utils.rnn.pack_padded_sequence(
        x(lib, 5, 3), [5, 2]), EXACT),
    ("pad_packed-total_length", lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_padded_sequence(x(lib, 5, 3), [5, 2, 1]), total_length=3),
     EXACT),
    ("pad_sequence-trailing", lambda lib: lib.nn.utils.rnn.pad_sequence(
        [x(lib, 2, 3), x(lib, 2, 4)]), EXACT),
    ("pad_sequence-trailing-3d", lambda lib: lib.nn.utils.rnn.pad_sequence(
        [x(lib, 2, 3, 5), x(lib, 2, 3, 4)], batch_first=True), EXACT),
    ("pad_sequence-more-dims", lambda lib: lib.nn.utils.rnn.pad_sequence(
        [x(lib, 2, 3), x(lib, 4, 1, 3)]), EXACT),
    ("pad_sequence-first-1d", lambda lib: lib.nn.utils.rnn.pad_sequence(
        [x(lib, 2), x(lib, 4, 3)]), EXACT),
    ("pad_sequence-0d", lambda lib: lib.nn.utils.rnn.pad_sequence([x(lib, 2), x(lib)]),
     EXACT),
    ("pack_sequence-empty", lambda lib: lib.nn.utils.rnn.pack_sequence([]), EXACT),
    ("clip-norm-type", lambda lib: lib.nn.utils.clip_grad_norm_(
        [_with_grad(lib, np.ones(2))], 1.0, norm_type="fro"), EXACT),
    ("pad_sequence-side", lambda lib: lib.nn.utils.rnn.pad_sequence(
        [x(lib, 2)], padding_side="middle"), EXACT),
    ("init-fan-1d", lambda lib: lib.nn.init.xavier_uniform_(x(lib, 3)), EXACT),
    ("init-mode", lambda lib: lib.nn.init.kaiming_uniform_(x(lib, 3, 3), mode="fan"),
     EXACT),
    ("init-gain", lambda lib: lib.nn.init.calculate_gain("swish"), EXACT),
    ("init-gain-param", lambda lib: lib.nn.init.calculate_gain("leaky_relu", "a"), EXACT),
    ("init-orthogonal-1d", lambda lib: lib.nn.init.orthogonal_(x(lib, 3)), EXACT),
    ("init-eye-3d", lambda lib: lib.nn.init.eye_(x(lib, 2, 2, 2)), EXACT),
    ("init-dirac-2d", lambda lib: lib.nn.init.dirac_(x(lib, 2, 2)), EXACT),
    ("DataLoader-batch_size", lambda lib: lib.utils.data.DataLoader(range(3), batch_size=0),
     EXACT),
    ("DataLoader-sampler-shuffle", lambda lib: lib.utils.data.DataLoader(
        range(3), sampler=[0, 1, 2], shuffle=True), EXACT),
    ("DataLoader-workers", lambda lib: lib.utils.data.DataLoader(range(3), num_workers=-1),
     EXACT),
    ("DataLoader-batch_sampler", lambda lib: lib.utils.data.DataLoader(
        range(3), batch_size=2, batch_sampler=[[0, 1]]), EXACT),
    ("TensorDataset-size", lambda lib: lib.utils.data.TensorDataset(x(lib, 3), x(lib, 4)),
     EXACT),
    ("random_split-sum", lambda lib: lib.utils.data.random_split(range(5), [2, 2]), EXACT),
    ("RandomSampler-num_samples", lambda lib: lib.utils.data.RandomSampler(
        range(3), num_samples=0), EXACT),
]


def _with_grad(lib, g):
    p = as_lib(lib, np.zeros(g.shape), requires_grad=True)
    p.grad = as_lib(lib, g)
    return p


# PyTorch messages that mention tensor types or reprs differ only by library name
# (ferric.Size in a shape repr); ferric may also quote PyTorch's wording verbatim
def _normalise(msg):
    return msg.replace("torch.", "ferric.")


# mismatches that live in ferric.nn.functional / _functional_loss or the Rust core
XFAIL: dict[str, str] = {
    "Linear-in_features": (
        "F.linear: nn.Linear(3, 2)(ones(4, 5)) raises 'mat1 and mat2 shapes cannot be "
        "multiplied (4x5 and 3x2)'; torch prefixes 'addmm: '"),
    "Linear-1d-in_features": (
        "F.linear on a 1-d input: nn.Linear(3, 2)(ones(5)) raises 'mm: mat1 and mat2 shapes "
        "cannot be multiplied (1x5 and 3x2)'; torch says 'addmm: ...'"),
    "Bilinear-in2": (
        "F.bilinear: nn.Bilinear(3, 4, 2)(ones(5, 3), ones(5, 3)) raises 'bilinear(): input "
        "sizes 3 and 3 do not match weight of shape [2, 3, 4]'; torch: 'bilinear(): input2 "
        "size does not match weight size: got 3 but expected 4'"),
    "BatchNorm2d-channels": (
        "F.batch_norm: BatchNorm2d(3)(ones(2, 4, 3, 3)) raises the broadcasting error 'add: "
        "The size of tensor a (4) must match ...'; torch: 'running_mean should contain 4 "
        "elements not 3'"),
    "GroupNorm-channels": (
        "F.group_norm: GroupNorm(2, 4)(ones(2, 6, 3)) raises \"reshape: shape '[1, 6, 1]' is "
        "invalid for input of size 4\"; torch: 'Expected weight to be a vector of size "
        "equal to the number of channels in input, but got weight of shape [4] and input of "
        "shape [2, 6, 3]'"),
    "Unflatten-size": (
        "Tensor.unflatten (Rust): ones(2, 5).unflatten(1, (2, 3)) says 'unflatten: "
        "unflatten: Provided sizes ...' (the op name twice); torch: 'unflatten: Provided "
        "sizes [2, 3] don't multiply up to the size of dim 1 (5) in the input tensor'"),
    "Unflatten-two-inferred": (
        "Tensor.unflatten (Rust): ones(2, 12).unflatten(1, (2, -1, -1)) says the sizes "
        "'don't multiply up'; torch: 'only one dimension can be inferred'"),
    "CE-float-target-shape": (
        "F.cross_entropy(ones(3, 5), ones(3, 4)) (float target of another shape) raises "
        "'expected target dtype to be Long or Byte, but got Float'; torch: '0D or 1D target "
        "tensor expected, multi-target not supported'"),
}


@pytest.mark.parametrize(("cid", "call", "fragment"), [
    pytest.param(*c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                 if c[0] in XFAIL else []) for c in CASES])
def test_error_parity(cid, call, fragment):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as t_info:
            call(torch)
        with pytest.raises(Exception) as f_info:
            call(ferric)
    t_exc, f_exc = t_info.value, f_info.value
    # torch raises subclasses of the builtin types (torch.AcceleratorError, ...): compare
    # against the builtin base
    t_base = next(c for c in type(t_exc).__mro__ if c.__module__ == "builtins")
    assert isinstance(f_exc, t_base), (
        f"type: ferric {type(f_exc).__name__}: {f_exc}\n      torch {type(t_exc).__name__}: "
        f"{t_exc}")
    t_msg, f_msg = _normalise(str(t_exc)), str(f_exc)
    if fragment is None:
        assert f_msg in (t_msg, str(t_exc)), f"message:\nferric: {f_msg}\ntorch:  {t_msg}"
    else:
        assert fragment in t_msg, f"test bug: {fragment!r} not in torch's {t_msg!r}"
        assert fragment in f_msg, f"ferric's {f_msg!r} lacks {fragment!r} (torch: {t_msg!r})"
