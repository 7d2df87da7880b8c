"""A character-level language model, written the way a PyTorch tutorial script is.

Everything below is plain PyTorch code: device boilerplate, seeding (CUDA included),
a ``Dataset`` + ``DataLoader``, an ``nn.Embedding`` + ``nn.LSTM`` model trained with
Adam, a checkpoint saved with ``torch.save(model.state_dict(), path)`` and restored with
``load_state_dict(torch.load(path))``, and top-k sampling with ``torch.topk`` and
``torch.multinomial``. The corpus is a short text in this file, so nothing is
downloaded. The only line that is not a tutorial's is the choice of library::

    python examples/char_lm.py               # on ferric (`import ferric as torch`)
    python examples/char_lm.py --lib torch   # the same script on PyTorch
    python examples/char_lm.py --steps 60    # shorter run (the test uses this)

Both print the same numbers (``tests/test_example_char_lm.py`` checks ferric's against
the values PyTorch 2.13 printed): the losses agree to float32 rounding (PyTorch runs its
CPU LSTM through oneDNN, whose last bits differ) and the sampled text is the same. The
default run (300 steps) takes about ten seconds on one CPU core.
"""

import argparse
import importlib
import os
import random
import tempfile
import time
from typing import Any

parser = argparse.ArgumentParser(description="Train a character-level LSTM language model.")
parser.add_argument("--lib", choices=("ferric", "torch"), default="ferric",
                    help="the library to run on: ferric (import ferric as torch) or torch")
parser.add_argument("--steps", type=int, default=300, help="training steps")
parser.add_argument("--seq-len", type=int, default=48, help="characters per example")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--hidden", type=int, default=128, help="LSTM hidden size")
parser.add_argument("--lr", type=float, default=3e-3)
parser.add_argument("--log-every", type=int, default=50, help="print the loss every N steps")
parser.add_argument("--seed", type=int, default=1337)
args = parser.parse_args()

# `import torch`, or `import ferric as torch`: the rest of the script is the same for both
torch: Any = importlib.import_module("torch" if args.lib == "torch" else "ferric")
nn = torch.nn
F = torch.nn.functional
DataLoader = torch.utils.data.DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"library: {args.lib}, device: {device}")

random.seed(args.seed)
torch.manual_seed(args.seed)
torch.cuda.manual_seed_all(args.seed)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False

TEXT = """\
The lighthouse keeper climbed the stairs every evening at the same hour. There were one
hundred and twelve steps, and he counted them out loud, because the wind in the tower
liked to steal numbers. At the top he wound the clock, trimmed the wick and polished the
great lens until the lamp threw a clean white road across the water. Ships that passed
in the night never saw him; they saw only the light, turning and turning, patient as the
tide. In the morning he wrote three lines in the log: the weather, the ships, and one
thing he had learned. The wind is louder before rain. Gulls sleep on the water when the
sea is calm. A lamp that is cared for does not ask to be thanked. Years later, when the
light was run by a machine and the keeper had moved to a house in the village, children
asked him what he had done all those nights alone. He told them he had been counting:
steps, ships, waves, stars, and the long slow turns of the light, and that none of it
had ever been the same twice.
"""

chars = sorted(set(TEXT))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}


def encode(s):
    return [stoi[c] for c in s]


def decode(ids):
    return "".join(itos[i] for i in ids)


class CharDataset(torch.utils.data.Dataset):
    """Every window of ``seq_len + 1`` characters: the input and the next characters."""

    def __init__(self, text, seq_len):
        self.data = torch.tensor(encode(text), dtype=torch.long)
        self.seq_len = seq_len

    def __len__(self):
        return len(self.data) - self.seq_len

    def __getitem__(self, idx):
        chunk = self.data[idx: idx + self.seq_len + 1]
        return chunk[:-1], chunk[1:]


class CharLM(torch.nn.Module):
    def __init__(self, vocab_size, embed_dim=32, hidden_size=128, num_layers=1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers=num_layers, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


split = int(0.9 * len(TEXT))
train_set = CharDataset(TEXT[:split], args.seq_len)
val_set = CharDataset(TEXT[split - args.seq_len - 1:], args.seq_len)
train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)
val_loader = DataLoader(val_set, batch_size=args.batch_size)
print(f"vocabulary: {vocab_size} characters, train windows: {len(train_set)}, "
      f"validation windows: {len(val_set)}")

model = CharLM(vocab_size, hidden_size=args.hidden).to(device)
n_params = sum(p.numel() for p in model.parameters())
print(f"parameters: {n_params}")
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)


def evaluate(model, loader):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits, _ = model(x)
            loss = F.cross_entropy(logits.reshape(-1, vocab_size), y.reshape(-1),
                                   reduction="sum")
            total += loss.item()
            count += y.numel()
    model.train()
    return total / count


start = time.time()
step = 0
model.train()
while step < args.steps:
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        logits, _ = model(x)
        loss = F.cross_entropy(logits.view(-1, vocab_size), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        step += 1
        if step % args.log_every == 0 or step == 1:
            print(f"step {step:4d}  train loss {loss.item():.6f}")
        if step == args.steps:
            break
elapsed = time.time() - start
val_loss = evaluate(model, val_loader)
print(f"validation loss {val_loss:.6f}")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "char_lm.pt")
    torch.save(model.state_dict(), path)
    restored = CharLM(vocab_size, hidden_size=args.hidden).to(device)
    restored.load_state_dict(torch.load(path))
print(f"restored checkpoint: validation loss {evaluate(restored, val_loader):.6f}")


@torch.no_grad()
def sample(model, prompt, length, k=5, temperature=0.8):
    """Continues ``prompt`` by ``length`` characters, each drawn from the ``k`` most likely."""
    model.eval()
    x = torch.tensor([encode(prompt)], dtype=torch.long, device=device)
    logits, state = model(x)
    ids = []
    for _ in range(length):
        top_logits, top_ids = torch.topk(logits[0, -1] / temperature, k)
        probs = F.softmax(top_logits, dim=-1)
        next_id = top_ids[torch.multinomial(probs, num_samples=1)]
        ids.append(next_id.item())
        logits, state = model(next_id.view(1, 1), state)
    return prompt + decode(ids)


torch.manual_seed(args.seed)
print("sample:", repr(sample(restored, "The light", 120)))
print(f"trained {args.steps} steps in {elapsed:.1f} s")
