"""Sentiment of randomly generated parse trees with a child-sum Tree-LSTM.

Every sentence is a tree of a different shape: leaves are words, inner nodes are either
``and`` (the children's sentiments add up) or ``not`` (the sum of its children is
negated). The label is the sign of the root's sentiment, so a model has to follow the
tree structure: the same words can mean the opposite under a ``not``. The Tree-LSTM
(Tai et al., 2015, child-sum variant) is applied recursively, one node at a time, by
plain Python recursion: autograd records a different graph for every tree.

Run ``python examples/tree_lstm.py --help`` for the options; the defaults need no
arguments and finish in well under a minute. The script uses only PyTorch API: change
the ``import ferric as torch`` line to ``import torch`` and it runs on PyTorch.
``--autobatch`` (ferric only) runs the same per-tree code inside ``ferric.autobatch()``,
which groups the nodes of all trees in a batch into batched kernels (see
``docs/autobatch.md``); the numbers it prints are the same to float rounding.
"""

import argparse
import contextlib
import random

import ferric as torch

nn = torch.nn
F = torch.nn.functional

POSITIVE = ["good", "great", "fun", "superb", "moving"]
NEGATIVE = ["bad", "dull", "awful", "boring", "weak"]
NEUTRAL = ["the", "a", "film", "plot", "actor"]
WORDS = POSITIVE + NEGATIVE + NEUTRAL
POLARITY = {**{w: 1 for w in POSITIVE}, **{w: -1 for w in NEGATIVE},
            **{w: 0 for w in NEUTRAL}}
# inner nodes carry a token too, so the cell can learn what "not" does to its children
TOKENS = WORDS + ["<and>", "<not>"]
INDEX = {t: i for i, t in enumerate(TOKENS)}


class Tree:
    """A parse-tree node: a token and a (possibly empty) list of children."""

    def __init__(self, token, children=()):
        self.token = token
        self.children = list(children)

    def sentiment(self):
        """The rule the model has to discover."""
        if not self.children:
            return POLARITY[self.token]
        total = sum(c.sentiment() for c in self.children)
        return -total if self.token == "<not>" else total

    def size(self):
        return 1 + sum(c.size() for c in self.children)

    def __str__(self):
        if not self.children:
            return self.token
        return "(" + self.token.strip("<>") + " " + " ".join(map(str, self.children)) + ")"


def random_tree(rng, depth=0, max_depth=3):
    """A random tree: 1-3 children per inner node, leaves more likely deeper down."""
    if depth >= max_depth or (depth > 0 and rng.random() < 0.35):
        return Tree(rng.choice(WORDS))
    if rng.random() < 0.3:
        return Tree("<not>", [random_tree(rng, depth + 1, max_depth)])
    n = rng.randint(2, 3)
    return Tree("<and>", [random_tree(rng, depth + 1, max_depth) for _ in range(n)])


def make_dataset(rng, n, max_depth):
    """`n` trees whose sentiment is not zero, with label 1 (positive) or 0 (negative)."""
    data = []
    while len(data) < n:
        t = random_tree(rng, max_depth=max_depth)
        s = t.sentiment()
        if s != 0:
            data.append((t, int(s > 0)))
    return data


class ChildSumTreeLSTM(nn.Module):
    """The child-sum Tree-LSTM cell, applied recursively over a tree."""

    def __init__(self, vocab, embed_dim, hidden):
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, embed_dim)
        # input, output and update gates from the token and the children's summed state
        self.w_iou = nn.Linear(embed_dim, 3 * hidden)
        self.u_iou = nn.Linear(hidden, 3 * hidden, bias=False)
        # one forget gate per child, each from that child's own state
        self.w_f = nn.Linear(embed_dim, hidden)
        self.u_f = nn.Linear(hidden, hidden, bias=False)

    def node(self, tree):
        """Returns (h, c) of `tree`, each of shape (hidden,)."""
        x = self.embed(torch.tensor(INDEX[tree.token]))
        if tree.children:
            states = [self.node(c) for c in tree.children]
            hs = torch.stack([h for h, _ in states])  # (children, hidden)
            cs = torch.stack([c for _, c in states])
            iou = self.w_iou(x) + self.u_iou(hs.sum(0))
            f = torch.sigmoid(self.w_f(x) + self.u_f(hs))  # (children, hidden)
            carried = (f * cs).sum(0)
        else:
            iou = self.w_iou(x)
            carried = None
        i, o, u = iou.chunk(3)
        c = torch.sigmoid(i) * torch.tanh(u)
        if carried is not None:
            c = c + carried
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

    def forward(self, tree):
        return self.node(tree)[0]


class SentimentModel(nn.Module):
    def __init__(self, embed_dim, hidden):
        super().__init__()
        self.encoder = ChildSumTreeLSTM(len(TOKENS), embed_dim, hidden)
        self.classify = nn.Linear(hidden, 2)

    def forward(self, tree):
        return self.classify(self.encoder(tree))


def accuracy(model, data, batching=contextlib.nullcontext):
    with torch.no_grad():
        with batching():
            logits = [model(t) for t, _ in data]
        right = sum(int(z.argmax().item() == y) for z, (_, y) in zip(logits, data, strict=True))
    return right / len(data)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=6, help="passes over the data (default: 6)")
    p.add_argument("--train-size", type=int, default=400, help="training trees (default: 400)")
    p.add_argument("--test-size", type=int, default=200, help="held-out trees (default: 200)")
    p.add_argument("--max-depth", type=int, default=3, help="maximum tree depth (default: 3)")
    p.add_argument("--batch-size", type=int, default=16,
                   help="trees per optimizer step (default: 16)")
    p.add_argument("--embed-dim", type=int, default=16, help="token embedding size (default: 16)")
    p.add_argument("--hidden", type=int, default=32, help="Tree-LSTM state size (default: 32)")
    p.add_argument("--lr", type=float, default=0.02, help="Adam learning rate (default: 0.02)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--autobatch", action="store_true",
                   help="run the per-tree code inside ferric.autobatch() (ferric only)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    return p.parse_args(argv)


def main(argv=None):
    """Trains and returns {"accuracy": [test accuracy before training, after each epoch],
    "loss": [mean training loss per epoch]}."""
    args = parse_args(argv)
    say = (lambda *a: None) if args.quiet else print
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    train = make_dataset(rng, args.train_size, args.max_depth)
    test = make_dataset(rng, args.test_size, args.max_depth)
    sizes = [t.size() for t, _ in train]
    say(f"{len(train)} training trees of {min(sizes)}-{max(sizes)} nodes, e.g. "
        f"{train[0][0]} -> {'positive' if train[0][1] else 'negative'}")

    model = SentimentModel(args.embed_dim, args.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    batching = torch.autobatch if args.autobatch else contextlib.nullcontext
    accs = [accuracy(model, test, batching)]
    losses = []
    say(f"before training: test accuracy {accs[0]:.3f}")
    for epoch in range(1, args.epochs + 1):
        rng.shuffle(train)
        total = 0.0
        for start in range(0, len(train), args.batch_size):
            batch = train[start:start + args.batch_size]
            # one graph per tree, joined by the sum: a single backward covers the batch
            with batching():
                logits = torch.stack([model(t) for t, _ in batch])
                labels = torch.tensor([y for _, y in batch])
                loss = F.cross_entropy(logits, labels)
                opt.zero_grad()
                loss.backward()
            opt.step()
            total += loss.item() * len(batch)
        losses.append(total / len(train))
        accs.append(accuracy(model, test, batching))
        say(f"epoch {epoch}: train loss {losses[-1]:.4f}  test accuracy {accs[-1]:.3f}")
    return {"accuracy": accs, "loss": losses}


if __name__ == "__main__":
    main()
