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
    RReLU,
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
from .batchnorm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
)
from .channelshuffle import ChannelShuffle
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
)
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .lazy import LazyModuleMixin
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
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
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

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
    # issue 16 (nn breadth)
    "ChannelShuffle", "CosineSimilarity", "CTCLoss", "EmbeddingBag", "LocalResponseNorm",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
    "PairwiseDistance", "PixelShuffle", "PixelUnshuffle", "RReLU", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss", "Upsample", "UpsamplingBilinear2d",
    "UpsamplingNearest2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
    "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyLinear",
    "LazyModuleMixin", "AdaptiveAvgPool3d", "AvgPool3d", "Conv3d", "ConvTranspose3d",
    "MaxPool3d", "LazyConv3d", "LazyConvTranspose3d", "AdaptiveMaxPool3d",
    "LPPool1d", "LPPool2d", "LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
]
