"""``DistributedDataParallel``: one model replica per process, gradients averaged over
the processes during ``backward()``.

How the gradients travel (as PyTorch's reducer does it):

- At construction the parameters that require grad are cut into buckets, in reverse
  registration order (roughly the order backward produces their gradients), per dtype:
  the first bucket holds up to 1 MiB so communication starts early, the others up to
  ``bucket_cap_mb`` (25 MiB). Each bucket is one flat tensor.
- A post-accumulate-grad hook on every parameter copies its gradient, divided by the
  world size, into its slot of the bucket. When a bucket's last gradient has arrived,
  and every earlier bucket has been started (every rank must start collectives in the
  same order), the bucket's sum all-reduce starts as a non-blocking MPI call; backward
  goes on computing the remaining gradients meanwhile. MPI moves a non-blocking reduction
  forward only inside MPI calls: when the node has a core to spare beyond its processes'
  kernel threads, a helper thread polls MPI so the started reductions progress during
  backward's kernels (which release the GIL); when every core already computes, the
  gradient hooks poll instead (a polling thread would only take time and the GIL from
  the computation it is meant to overlap).
- When the last bucket is started, the hook waits for all of them and writes the
  averaged values into every parameter's ``.grad`` (in place, as PyTorch's reducer
  does, so no new gradient memory is allocated per step).
"""

from __future__ import annotations

import contextlib

import numpy as np

from ... import _core
from ..._tree import tensors_in
from ...autograd.grad_mode import no_grad
from ...distributed import _backend, _group
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_MiB = 1024 * 1024
_FIRST_BUCKET_BYTES = 1 * _MiB


class _Bucket:
    """One flat tensor holding the gradients of several parameters."""

    def __init__(self, params, dtype):
        self.params = params  # indices into DDP._params
        self.dtype = dtype
        self.sizes = []
        self.flat = None
        self.arr = None
        self.views = []  # per parameter: an array view of its slot, parameter-shaped
        self.tviews = []  # the same slots as ferric tensors (for gradient_as_bucket_view)
        self.pending = 0
        self.request = None

    def allocate(self, shapes):
        total = sum(int(np.prod(s, dtype=np.int64)) for s in shapes)
        # float16/bfloat16 gradients are summed in a float32 bucket (MPI cannot add
        # halves); the average is rounded to the parameter's dtype once, at the end
        self.wide = _backend.buffer_dtype(self.dtype, reduce=True) == np.float32 \
            and self.dtype != _core.float32
        self.flat = _core.zeros(total, dtype=_core.float32 if self.wide else self.dtype)
        self.arr = _backend.as_array(self.flat)
        off = 0
        for s in shapes:
            n = int(np.prod(s, dtype=np.int64))
            self.views.append(self.arr[off:off + n].reshape(s))
            self.tviews.append(self.flat[off:off + n].view(s))
            off += n


def _assign_buckets(params, caps):
    """Index lists of parameters per bucket: reverse order, one open bucket per dtype,
    closed once it reaches the current cap (the first cap once, then the last)."""
    open_: dict = {}
    limit_of: dict = {}
    out = []
    for i in reversed(range(len(params))):
        p = params[i]
        key = p.dtype
        members, size = open_.get(key, ([], 0))
        members.append(i)
        size += p.numel() * p.element_size()
        k = limit_of.get(key, 0)
        if size >= caps[min(k, len(caps) - 1)]:
            out.append((members, key))
            open_.pop(key, None)
            limit_of[key] = k + 1
        else:
            open_[key] = (members, size)
    out.extend((members, key) for key, (members, _) in open_.items())
    return out


def _identity(t):
    """What identifies a leaf across wrappers: ``AccumulateGrad.variable`` is a new Python
    object for the same tensor, so ``is`` cannot be used; its memory and layout can."""
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)


def _writable_like(grad, view) -> bool:
    """Whether the averaged gradient can be written into ``grad`` itself: a dense
    gradient of the parameter's shape and dtype that shares memory with nothing else
    in the bucket."""
    return (grad is not None and tuple(grad.shape) == view.shape and grad.is_contiguous()
            and _backend.as_array(grad).dtype == view.dtype)


class DistributedDataParallel(Module):
    r"""Data-parallel training over the processes of a process group.

    Wrap the model after ``ferric.distributed.init_process_group()``; every process
    runs the same script on its own share of the data (see
    ``ferric.utils.data.distributed.DistributedSampler``). Parameters and buffers are
    copied from rank 0 at construction; after ``loss.backward()`` every process holds
    the gradients averaged over all processes, so N processes with batch B/N each train
    exactly as one process with batch B.

    Args:
        module (Module): the model to replicate.
        device_ids, output_device: only ``None`` (ferric runs on CPUs).
        dim (int): accepted for compatibility.
        broadcast_buffers (bool): copy rank 0's buffers to every rank at each training
            forward (default: True).
        init_sync (bool): broadcast parameters and buffers at construction (default: True).
        process_group (ProcessGroup, optional): the default group when None.
        bucket_cap_mb (float, optional): bucket size in MiB (default: 25).
        find_unused_parameters (bool): look through the forward's graph for parameters
            the loss does not use, so their buckets need not wait for them (default: False).
        check_reduction, static_graph, ...: accepted for compatibility.
        gradient_as_bucket_view (bool): let each ``param.grad`` be a view of its bucket
            (saves a copy and memory; default: False).

    Example:
        >>> import ferric
        >>> from ferric.nn.parallel import DistributedDataParallel as DDP
        >>> # ferric.distributed.init_process_group("mpi")
        >>> # model = DDP(ferric.nn.Linear(4, 2))
        >>> # model(x).sum().backward()   # grads are averaged over the ranks
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        if device_ids is not None or output_device is not None:
            raise ValueError(
                f"DistributedDataParallel device_ids and output_device arguments only work "
                f"with single-device/multiple-device GPU modules or CPU modules, but got "
                f"device_ids {device_ids}, output_device {output_device}, and module "
                f"parameters {{device(type='cpu')}}.")
        pg = _group._resolve(process_group, "DistributedDataParallel")
        if pg is None:
            raise ValueError("DistributedDataParallel: this process is not a member of "
                             "process_group")
        self.module = module
        self.process_group = pg
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MiB)
        self._params = [p for p in module.parameters() if p.requires_grad]
        if not self._params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        # DDP talks on a communicator of its own: its non-blocking reductions never
        # interleave with the user's collectives (or SyncBatchNorm's) on the group's
        self._comm = pg._comm.Dup()
        self._world = pg.size()
        self._timeout = pg._timeout
        self._verify_same_model()
        if init_sync:
            self._broadcast_coalesced(list(module.parameters()) + list(module.buffers()))
        self._buckets = []
        self._where = {}
        # PyTorch's default: a small first bucket so the first reduction starts early;
        # an explicit bucket_cap_mb applies to every bucket
        caps = ([_FIRST_BUCKET_BYTES, self.bucket_bytes_cap] if bucket_cap_mb is None
                else [self.bucket_bytes_cap])
        for members, dtype in _assign_buckets(self._params, caps):
            b = _Bucket(members, dtype)
            b.allocate([tuple(self._params[i].shape) for i in members])
            for slot, i in enumerate(members):
                self._where[i] = (len(self._buckets), slot)
            self._buckets.append(b)
        self._ready = [False] * len(self._params)
        self._next_bucket = 0
        self._expect_hooks = False
        self._started = False
        self._progress = None
        self._inflight: list = []
        self._poll_thread = _backend.has_spare_core(self._comm)
        self._local_used = np.zeros(len(self._params), dtype=np.int64)
        self._hooks = [p.register_post_accumulate_grad_hook(self._make_hook(i))
                       for i, p in enumerate(self._params)]

    # --- construction helpers -------------------------------------------------------
    def _verify_same_model(self):
        shapes = [(tuple(p.shape), str(p.dtype)) for p in self.module.parameters()]
        everyone = [None] * self._world
        from ...distributed._objects import all_gather_object
        all_gather_object(everyone, shapes, group=self.process_group)
        for r, theirs in enumerate(everyone):
            if theirs != shapes:
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank "
                    f"{self.process_group.rank()} has {len(shapes)} params and rank {r} has "
                    f"{len(theirs)}, or their shapes/dtypes differ: {shapes} vs {theirs}")

    def _broadcast_coalesced(self, tensors):
        """Copies rank 0's tensors to every rank: one broadcast per dtype."""
        if self._world == 1 or not tensors:
            return
        by_dtype: dict = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        for ts in by_dtype.values():
            views = [_backend.values(t) for t in ts]
            flat = np.concatenate([v.reshape(-1) for v in views]) if views else None
            req = self._comm.Ibcast([flat, _backend.mpi_type(flat.dtype)], 0)
            _backend.wait_all([req], self._timeout, "DistributedDataParallel broadcast",
                              self.process_group.rank())
            off = 0
            for t, v in zip(ts, views, strict=True):
                _backend.assign(t, flat[off:off + v.size])
                off += v.size

    # --- the reducer ----------------------------------------------------------------
    def _prepare_for_backward(self, outputs):
        if self._started:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting "
                "a new one. This error indicates that your module has parameters that were "
                "not used in producing loss. You can enable unused parameter detection by "
                "passing the keyword argument `find_unused_parameters=True` to "
                "`ferric.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss.")
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        for b in self._buckets:
            b.pending = len(b.params)
            b.request = None
        self._ready = [False] * len(self._params)
        self._next_bucket = 0
        self._inflight = []
        self._local_used[:] = 0
        self._expect_hooks = True
        if self.find_unused_parameters:
            used = self._reachable_params(outputs)
            for i, p in enumerate(self._params):
                if _identity(p) not in used:
                    self._mark_ready(i, None)

    def _reachable_params(self, outputs):
        """Identities (``_identity``) of the leaves the outputs' autograd graph reaches."""
        seen = set()
        stack = [t.grad_fn for t in tensors_in(outputs, []) if t.grad_fn is not None]
        found = set()
        while stack:
            fn = stack.pop()
            if fn in seen:
                continue
            seen.add(fn)
            var = getattr(fn, "variable", None)
            if var is not None:
                found.add(_identity(var))
            for nxt, _ in fn.next_functions:
                if nxt is not None and nxt not in seen:
                    stack.append(nxt)
        # a parameter that is itself an output is used too
        found.update(_identity(t) for t in tensors_in(outputs, []) if t.is_leaf)
        return found

    def _make_hook(self, index):
        def hook(param):
            if not self._expect_hooks or not self.require_backward_grad_sync:
                return
            self._started = True
            self._local_used[index] = 1
            self._mark_ready(index, param.grad)
        return hook

    def _mark_ready(self, index, grad):
        if self._ready[index]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter at index {index} "
                f"with shape {tuple(self._params[index].shape)} has been marked as ready "
                f"twice: it is used in several reentrant backward passes or shared by "
                f"several forward calls in one iteration.")
        self._ready[index] = True
        b_idx, slot = self._where[index]
        bucket = self._buckets[b_idx]
        view = bucket.views[slot]
        if grad is None:
            view.fill(0)
        else:
            src = _backend.values(grad, reduce=True)
            if self._world == 1:
                if src is not view:
                    np.copyto(view, src)
            else:
                np.multiply(src, view.dtype.type(1.0 / self._world), out=view)
        bucket.pending -= 1
        self._launch_ready_buckets()
        if self._inflight and _backend.mpi().Request.Testall(self._inflight):
            self._inflight = []  # all started reductions are done

    def _launch_ready_buckets(self):
        MPI = _backend.mpi()
        while (self._next_bucket < len(self._buckets)
               and self._buckets[self._next_bucket].pending == 0):
            b = self._buckets[self._next_bucket]
            b.request = self._comm.Iallreduce(MPI.IN_PLACE, [b.arr, _backend.mpi_type(b.arr.dtype)],
                                              MPI.SUM)
            self._next_bucket += 1
            if self._next_bucket < len(self._buckets):
                # more gradients to come: advance this reduction while backward computes
                # them, from a helper thread (a spare core) or from the next hooks
                if not self._poll_thread:
                    self._inflight.append(b.request)
                    continue
                if self._progress is None:
                    self._progress = _backend.Progress()
                self._progress.add(b.request)
        if self._next_bucket == len(self._buckets):
            if self._progress is not None:
                self._progress.stop()
                self._progress = None
            self._finalize([b.request for b in self._buckets if b.request is not None])

    def _finalize(self, requests):
        rank = self.process_group.rank()
        _backend.wait_all(requests, self._timeout, "DistributedDataParallel gradient "
                          "all-reduce", rank)
        self._expect_hooks = False
        self._started = False
        used = None
        if self.find_unused_parameters:
            used = self._local_used.copy()
            MPI = _backend.mpi()
            req = self._comm.Iallreduce(MPI.IN_PLACE, [used, MPI.INT64_T], MPI.MAX)
            _backend.wait_all([req], self._timeout, "DistributedDataParallel unused "
                              "parameter map all-reduce", rank)
        with no_grad():
            for i, p in enumerate(self._params):
                if used is not None and not used[i]:
                    continue  # unused on every rank: its grad stays as it was
                b_idx, slot = self._where[i]
                bucket = self._buckets[b_idx]
                view = bucket.views[slot]
                if bucket.wide:  # rounded to the parameter's dtype (no bucket views)
                    p.grad = _core.from_numpy(view.copy()).to(p.dtype)
                elif self.gradient_as_bucket_view:
                    p.grad = bucket.tviews[slot]
                elif _writable_like(p.grad, view):
                    np.copyto(_backend.as_array(p.grad), view)
                else:
                    p.grad = _core.from_numpy(view.copy())

    # --- Module API -----------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        sync = _core.is_grad_enabled() and self.training and self.require_backward_grad_sync
        if self.broadcast_buffers and self.require_forward_param_sync and self.training:
            bufs = list(self.module.buffers())
            if bufs:
                self._broadcast_coalesced(bufs)
        if sync and not self.find_unused_parameters:
            self._prepare_for_backward(None)
        output = self.module(*inputs, **kwargs)
        if sync and self.find_unused_parameters:
            self._prepare_for_backward(output)
        elif not sync:
            self._expect_hooks = False
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Inside this context the gradients are accumulated locally, not averaged; the
        first backward after it averages the accumulated sum.

        Example:
            >>> # with ddp.no_sync():
            >>> #     ddp(x1).sum().backward()   # local only
            >>> # ddp(x2).sum().backward()       # averages x1's and x2's gradients
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def extra_repr(self):
        return ""
