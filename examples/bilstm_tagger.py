"""A BiLSTM tagger written one sentence at a time, batched by ``ferric.autobatch``.

The task is synthetic and needs both directions: the tag of a word is
``(word + next word) % TAGS`` (the last word pairs with itself), so a forward-only
model cannot know it. The model embeds the words, runs an ``LSTMCell`` forward and one
backward over the sentence, and classifies each word from both states. The code handles
one sentence of any length at a time, with plain Python loops; sentences have 5..60
words and no padding is made anywhere.

Three ways to run the same model (``--mode``):

- ``eager``: the per-sentence code as is; every op runs at batch size one.
- ``autobatch``: the per-sentence code inside ``ferric.autobatch()`` (ferric only):
  the cells of all sentences at the same position run as one batched call.
- ``packed``: hand-batched, the way it is usually written for speed: one
  ``nn.LSTM(bidirectional=True)`` call over a ``PackedSequence``.

Run ``python examples/bilstm_tagger.py --help`` for the options. Without
``--mode autobatch`` the script uses only PyTorch API (``import torch`` runs it).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time

import ferric as torch

nn = torch.nn
F = torch.nn.functional
rnn = torch.nn.utils.rnn


def make_data(rng, n, vocab, tags, min_len=5, max_len=60):
    """``n`` sentences (1-d index tensors) and their tag tensors."""
    words, labels = [], []
    for _ in range(n):
        w = [rng.randrange(vocab) for _ in range(rng.randint(min_len, max_len))]
        words.append(torch.tensor(w))
        pairs = zip(w, w[1:] + w[-1:], strict=True)
        labels.append(torch.tensor([(a + b) % tags for a, b in pairs]))
    return words, labels


class Tagger(nn.Module):
    """Embedding, a forward and a backward LSTMCell, a Linear over both states."""

    def __init__(self, vocab, emb, hidden, tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.fwd = nn.LSTMCell(emb, hidden)
        self.bwd = nn.LSTMCell(emb, hidden)
        self.out = nn.Linear(2 * hidden, tags)

    def sentence(self, words):
        """Tag scores ``(len, tags)`` of one sentence, one word at a time."""
        xs = self.emb(words).unbind(0)
        state, forward = None, []
        for x in xs:
            state = self.fwd(x, state)
            forward.append(state[0])
        state, backward = None, []
        for x in reversed(xs):
            state = self.bwd(x, state)
            backward.append(state[0])
        backward.reverse()
        both = zip(forward, backward, strict=True)
        return torch.stack([self.out(torch.cat([f, b])) for f, b in both])

    def scores(self, words):
        return [self.sentence(w) for w in words]

    def loss(self, words, labels):
        """The mean over sentences of each sentence's mean token loss."""
        total = 0.0
        for w, t in zip(words, labels, strict=True):
            total = total + F.cross_entropy(self.sentence(w), t)
        return total / len(words)


class PackedTagger(nn.Module):
    """The same model hand-batched: one bidirectional nn.LSTM over packed sequences."""

    def __init__(self, vocab, emb, hidden, tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)

    def scores(self, words):
        return [self.out(self.lstm(self.emb(w).unsqueeze(1))[0].squeeze(1)) for w in words]

    def loss(self, words, labels):
        lengths = [len(w) for w in words]
        padded = rnn.pad_sequence(words)                        # (max_len, B)
        packed = rnn.pack_padded_sequence(self.emb(padded), lengths, enforce_sorted=False)
        y, _ = rnn.pad_packed_sequence(self.lstm(packed)[0])    # (max_len, B, 2 * hidden)
        feats = torch.cat([y[:n, b] for b, n in enumerate(lengths)])
        losses = F.cross_entropy(self.out(feats), torch.cat(labels), reduction="none")
        return torch.stack([part.mean() for part in losses.split(lengths)]).mean()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=["eager", "autobatch", "packed"], default="eager",
                   help="how to batch (default: eager)")
    p.add_argument("--steps", type=int, default=30, help="training steps (default: 30)")
    p.add_argument("--batch-size", type=int, default=32,
                   help="sentences per step (default: 32)")
    p.add_argument("--vocab", type=int, default=20, help="vocabulary size (default: 20)")
    p.add_argument("--tags", type=int, default=5, help="number of tags (default: 5)")
    p.add_argument("--hidden", type=int, default=32, help="LSTM state size (default: 32)")
    p.add_argument("--lr", type=float, default=0.05, help="Adam learning rate (default: 0.05)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    return p.parse_args(argv)


def main(argv=None):
    """Trains; returns {"loss": [loss per step], "accuracy": held-out token accuracy,
    "seconds": training time}."""
    args = parse_args(argv)
    say = (lambda *a: None) if args.quiet else print
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    test_words, test_labels = make_data(rng, 64, args.vocab, args.tags)
    cls = PackedTagger if args.mode == "packed" else Tagger
    model = cls(args.vocab, 16, args.hidden, args.tags)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    batching = torch.autobatch if args.mode == "autobatch" else contextlib.nullcontext
    losses = []
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        words, labels = make_data(rng, args.batch_size, args.vocab, args.tags)
        with batching():
            loss = model.loss(words, labels)
            opt.zero_grad()
            loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 10 == 0 or step == 1:
            say(f"step {step}: loss {losses[-1]:.4f}")
    seconds = time.perf_counter() - start
    with torch.no_grad(), batching():
        scores = model.scores(test_words)
    right = total = 0
    for s, t in zip(scores, test_labels, strict=True):
        right += int((s.argmax(1) == t).sum().item())
        total += len(t)
    acc = right / total
    say(f"held-out token accuracy {acc:.3f}; {seconds:.2f} s for {args.steps} steps "
        f"({args.mode})")
    return {"loss": losses, "accuracy": acc, "seconds": seconds}


if __name__ == "__main__":
    main()
