"""The layer classes of ``ferric.nn``, one file per family as in ``torch.nn.modules``."""

from ._sync_batchnorm import SyncBatchNorm
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    MultiheadAttention,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .padding import (
    ConstantPad1d,
    ConstantPad2d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    ZeroPad1d,
    ZeroPad2d,
)
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

# A literal list, so type checkers see the names `ferric.nn` re-exports; a test
# (tests/test_typing.py) fails when a layer imported above is missing here.
__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "BCELoss",
    "BCEWithLogitsLoss", "Bilinear", "CELU", "ConstantPad1d", "ConstantPad2d", "Conv1d",
    "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "CosineEmbeddingLoss", "CrossEntropyLoss",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ELU", "Embedding", "Flatten", "Fold",
    "GaussianNLLLoss", "GELU", "GLU", "GroupNorm", "GRU", "GRUCell", "Hardshrink",
    "Hardsigmoid", "Hardswish", "Hardtanh", "HingeEmbeddingLoss", "HuberLoss", "Identity",
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "KLDivLoss", "L1Loss", "LayerNorm",
    "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "LSTM", "LSTMCell", "MarginRankingLoss",
    "MaxPool1d", "MaxPool2d", "Mish", "Module", "ModuleDict", "ModuleList", "MSELoss",
    "MultiheadAttention", "NLLLoss", "ParameterDict", "ParameterList", "PoissonNLLLoss",
    "PReLU", "ReflectionPad1d", "ReflectionPad2d", "ReLU", "ReLU6", "ReplicationPad1d",
    "ReplicationPad2d", "RMSNorm", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "SELU",
    "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "SoftMarginLoss", "Softmax", "Softmax2d",
    "Softmin", "Softplus", "Softshrink", "Softsign", "SyncBatchNorm", "Tanh", "Tanhshrink",
    "Threshold",
    "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer", "Unflatten", "Unfold", "ZeroPad1d", "ZeroPad2d",
]
