"""``DataParallel`` as PyTorch's behaves on a machine without GPUs: it holds the module
(``.module``, so state-dict keys are prefixed ``module.``) and calls it directly."""

from __future__ import annotations

from ..modules.module import Module


class DataParallel(Module):
    r"""``torch.nn.DataParallel`` on a CPU-only machine: splitting the batch over GPUs
    needs GPUs, so (as PyTorch does without CUDA) the wrapper runs ``module`` itself.
    Scripts written for ``DataParallel`` run unchanged, and checkpoints keep PyTorch's
    ``module.``-prefixed keys.

    Args:
        module (Module): the module to run.
        device_ids (list, optional): GPU indices; ignored without GPUs;
            ``device_ids`` is ``[]`` as in PyTorch.
        output_device (int, optional): ignored without GPUs.
        dim (int): the batch dimension the inputs would be scattered along (default 0);
            unused without GPUs.

    Example:
        >>> import ferric
        >>> model = ferric.nn.DataParallel(ferric.nn.Linear(3, 2))
        >>> model(ferric.ones(4, 3)).shape
        ferric.Size([4, 2])
        >>> list(model.state_dict())
        ['module.weight', 'module.bias']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        """Runs the wrapped module on ``inputs`` (no GPUs to scatter them over)."""
        return self.module(*inputs, **kwargs)
