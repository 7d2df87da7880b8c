"""``ferric.nn.utils``: gradient clipping, parameter/vector conversion and the
variable-length sequence helpers in ``ferric.nn.utils.rnn``."""

from . import parametrizations, parametrize, prune, rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

clip_grad_norm = clip_grad_norm_

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
    "get_total_norm", "parameters_to_vector", "rnn", "vector_to_parameters",
    "parametrizations", "parametrize", "prune", "remove_spectral_norm", "remove_weight_norm",
    "spectral_norm", "weight_norm",
]
