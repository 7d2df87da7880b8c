"""DistributedDataParallel and SyncBatchNorm on real processes: N ranks with batch B/N
each train exactly as one process with batch B (to float32 rounding), which every rank
checks against its own single-process replay. Usage: ``mpiexec -n 2 python ddp_worker.py OUT``.
"""

from __future__ import annotations

import copy
import sys

import numpy as np
from common import Checks, dist, ferric, init, values

from ferric import nn
from ferric.nn.parallel import DistributedDataParallel as DDP
from ferric.nn.parallel import distributed as ddp_module

B = 8  # the global batch


def make_model(seed, bn=True, dtype=ferric.float32):
    ferric.manual_seed(seed)
    layers = [nn.Linear(6, 16)]
    if bn:
        layers.append(nn.BatchNorm1d(16))
    layers += [nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3)]
    return nn.Sequential(*layers).to(dtype)


def batch(step, dtype=np.float32):
    x = values(("x", step), (B, 6), "float64").astype(dtype)
    y = values(("y", step), (B, 3), "float64").astype(dtype)
    return ferric.tensor(x), ferric.tensor(y)


def shard(t, rank, world):
    per = t.shape[0] // world
    return t[rank * per:(rank + 1) * per]


def close(a, b, what, rtol=2e-5, atol=2e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol,
                               err_msg=what)


def compare_models(got, want, what, **tol):
    g, w = got.state_dict(), want.state_dict()
    assert list(g) == list(w), (list(g), list(w))
    for k in g:
        close(g[k].numpy(), w[k].numpy(), f"{what}: {k}", **tol)


def main(out):
    rank, world = init()
    checks = Checks(out, rank)

    def train(steps, *, bn, dtype=ferric.float32, np_dtype=np.float32, **ddp_kwargs):
        # every rank starts from its own init: DDP must broadcast rank 0's
        local = make_model(seed=rank, bn=bn, dtype=dtype)
        if bn:
            local = nn.SyncBatchNorm.convert_sync_batchnorm(local)
        ddp = DDP(local, **ddp_kwargs)
        ref = make_model(seed=0, bn=bn, dtype=dtype)
        compare_models(ddp.module, ref, "after construction", rtol=0, atol=0)
        opt = ferric.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
        ref_opt = ferric.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
        for step in range(steps):
            x, y = batch(step, np_dtype)
            opt.zero_grad()
            nn.functional.mse_loss(ddp(shard(x, rank, world)), shard(y, rank, world)).backward()
            ref_opt.zero_grad()
            nn.functional.mse_loss(ref(x), y).backward()
            for (name, p), q in zip(ddp.module.named_parameters(), ref.parameters(),
                                    strict=True):
                close(p.grad.numpy(), q.grad.numpy(), f"step {step} grad {name}")
            opt.step()
            ref_opt.step()
        compare_models(ddp.module, ref, f"after {steps} steps")
        return ddp

    checks.run("ddp_equals_single_process", lambda: train(5, bn=False))
    checks.run("ddp_sync_batchnorm_equals_single_process", lambda: train(5, bn=True))
    checks.run("ddp_many_small_buckets_float64",
               lambda: train(3, bn=False, dtype=ferric.float64, np_dtype=np.float64,
                             bucket_cap_mb=0.0002))
    checks.run("ddp_gradient_as_bucket_view",
               lambda: train(3, bn=True, gradient_as_bucket_view=True))

    def with_progress(thread):
        # both ways of advancing the started reductions during backward (a polling
        # thread when the node has a spare core, the gradient hooks otherwise) give
        # the single-process result, with several buckets in flight at once
        def check():
            real = ddp_module._backend.has_spare_core
            ddp_module._backend.has_spare_core = lambda comm: thread
            try:
                ddp = train(4, bn=False, bucket_cap_mb=0.0002)
            finally:
                ddp_module._backend.has_spare_core = real
            assert ddp._poll_thread is thread and len(ddp._buckets) > 2
        return check
    def half_gradients(dtype):
        # float16/bfloat16 gradients are averaged in float32 and rounded once: every
        # rank replays every rank's local backward and checks that rounding exactly
        def check():
            ddp = DDP(make_model(rank, bn=False, dtype=dtype), bucket_cap_mb=0.0002)
            x, y = batch(0)
            x, y = x.to(dtype), y.to(dtype)
            out = ddp(shard(x, rank, world))
            nn.functional.mse_loss(out, shard(y, rank, world)).backward()
            locals_ = []
            for r in range(world):
                ref = make_model(0, bn=False, dtype=dtype)
                nn.functional.mse_loss(ref(shard(x, r, world)), shard(y, r, world)).backward()
                locals_.append([q.grad.float() for q in ref.parameters()])
            for i, p in enumerate(ddp.module.parameters()):
                assert p.grad.dtype == dtype, p.grad.dtype
                total = locals_[0][i] * (1.0 / world)
                for r in range(1, world):
                    total = total + locals_[r][i] * (1.0 / world)
                want = total.to(dtype).float().numpy()
                np.testing.assert_array_equal(p.grad.float().numpy(), want,
                                              err_msg=f"grad {i}")
        return check
    checks.run("ddp_float16_gradients", half_gradients(ferric.float16))
    checks.run("ddp_bfloat16_gradients", half_gradients(ferric.bfloat16))
    checks.run("ddp_progress_thread", with_progress(True))
    checks.run("ddp_progress_from_hooks", with_progress(False))

    def buckets_in_reverse_order():
        ddp = DDP(make_model(0, bn=False), bucket_cap_mb=0.0002)
        n = len(ddp._params)
        order = [i for b in ddp._buckets for i in b.params]
        assert order == list(reversed(range(n))), order
        assert len(ddp._buckets) > 2
    checks.run("ddp_buckets_reverse_order", buckets_in_reverse_order)

    def buckets_start_during_backward():
        # a gradient hook on the first layer's output runs in the middle of backward,
        # after the later layers' gradients: their buckets must be in flight by then
        ddp = DDP(make_model(0, bn=False), bucket_cap_mb=0.0002)
        seen = []
        x, y = batch(0)
        hidden = ddp.module[0](shard(x, rank, world))
        hidden.register_hook(lambda g: seen.append(ddp._next_bucket))
        ddp._prepare_for_backward(None)
        out = ddp.module[1:](hidden)
        nn.functional.mse_loss(out, shard(y, rank, world)).backward()
        assert seen and 0 < seen[0] < len(ddp._buckets), (seen, len(ddp._buckets))
        assert ddp._next_bucket == len(ddp._buckets)
    checks.run("ddp_buckets_start_during_backward", buckets_start_during_backward)

    def no_sync_accumulates():
        ddp = DDP(make_model(rank, bn=False))
        ref = make_model(0, bn=False)
        micro = [batch(10 + i) for i in range(3)]
        with ddp.no_sync():
            for x, y in micro[:2]:
                nn.functional.mse_loss(ddp(shard(x, rank, world)), shard(y, rank, world)) \
                    .backward()
        # inside no_sync the gradients are this rank's own (no communication)
        mine = copy.deepcopy(ref)
        for x, y in micro[:2]:
            nn.functional.mse_loss(mine(shard(x, rank, world)), shard(y, rank, world)) \
                .backward()
        for p, q in zip(ddp.module.parameters(), mine.parameters(), strict=True):
            close(p.grad.numpy(), q.grad.numpy(), "local accumulation")
        x, y = micro[2]
        nn.functional.mse_loss(ddp(shard(x, rank, world)), shard(y, rank, world)).backward()
        for x, y in micro:
            nn.functional.mse_loss(ref(x), y).backward()
        for p, q in zip(ddp.module.parameters(), ref.parameters(), strict=True):
            close(p.grad.numpy(), q.grad.numpy(), "accumulated and averaged")
    checks.run("ddp_no_sync_accumulation", no_sync_accumulates)

    class Branches(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 2)
            self.b = nn.Linear(4, 2)
            self.never = nn.Linear(4, 2)

        def forward(self, x, use_b):
            return self.a(x) + self.b(x) if use_b else self.a(x)

    def find_unused():
        ferric.manual_seed(0)
        model = Branches()
        ref = copy.deepcopy(model)
        ddp = DDP(model, find_unused_parameters=True)
        for step in range(2):
            ddp.zero_grad()
            x = ferric.tensor(values(("fu", step), (4, 4), "float32"))
            ddp(x, use_b=rank == world - 1).sum().backward()
            # the reference: each rank's local gradient (zero where unused), averaged
            grads = {}
            for r in range(world):
                ref.zero_grad()
                ref(x, use_b=r == world - 1).sum().backward()
                for name, p in ref.named_parameters():
                    g = np.zeros(p.shape, np.float32) if p.grad is None else p.grad.numpy()
                    grads[name] = grads.get(name, 0) + g / world
            for name, p in ddp.module.named_parameters():
                if name.startswith("never"):
                    assert p.grad is None, name  # unused everywhere: left alone
                else:
                    close(p.grad.numpy(), grads[name], f"step {step} {name}")
    checks.run("ddp_find_unused_parameters", find_unused)

    def unused_without_flag_raises():
        ferric.manual_seed(0)
        ddp = DDP(Branches())
        x = ferric.ones(2, 4)
        ddp(x, use_b=False).sum().backward()
        try:
            ddp(x, use_b=False)
        except RuntimeError as e:
            assert "Expected to have finished reduction in the prior iteration" in str(e)
            assert "find_unused_parameters=True" in str(e)
        else:
            raise AssertionError("no RuntimeError")
    checks.run("ddp_unused_without_flag_raises", unused_without_flag_raises)

    def module_and_state_dict():
        model = make_model(0, bn=True)
        ddp = DDP(model)
        assert ddp.module is model
        keys = list(ddp.state_dict())
        assert keys == ["module." + k for k in model.state_dict()], keys
        fresh = DDP(make_model(1, bn=True))
        fresh.load_state_dict(ddp.state_dict())
        compare_models(fresh.module, model, "loaded", rtol=0, atol=0)
    checks.run("ddp_module_and_state_dict_prefix", module_and_state_dict)

    def ddp_bad_input():
        for kwargs, exc, text in [
            ({"device_ids": [0]}, ValueError, "device_ids"),
        ]:
            try:
                DDP(make_model(0), **kwargs)
            except exc as e:
                assert text in str(e)
            else:
                raise AssertionError(f"no {exc.__name__}")
        frozen = nn.Linear(2, 2).requires_grad_(False)
        try:
            DDP(frozen)
        except RuntimeError as e:
            assert "doesn't have any parameter that requires a gradient" in str(e)
        else:
            raise AssertionError("no RuntimeError for a frozen module")
    checks.run("ddp_bad_input", ddp_bad_input)

    def sync_bn_eval_is_local():
        bn = nn.SyncBatchNorm(3).eval()
        x = ferric.tensor(values(("bn", rank), (4, 3, 2), "float32"))
        plain = nn.BatchNorm1d(3).eval()
        close(bn(x).detach().numpy(), plain(x).detach().numpy(), "eval")
    checks.run("sync_batchnorm_eval_is_local", sync_bn_eval_is_local)

    checks.dump()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
