"""Debugging eager code: printing inside ``forward``, tracebacks that end on the user's
own line (through ``Module.__call__``), anomaly mode naming the forward line, and the
examples in docs/debugging.md running as written."""

import re
import shutil
import traceback
from pathlib import Path

import pytest

import ferric
from ferric import nn

HERE = Path(__file__).resolve()
DOC = HERE.parent.parent / "docs" / "debugging.md"


def marked_line(marker):
    """The line number of the source line in this file ending with ``# <marker>``."""
    for i, line in enumerate(HERE.read_text().splitlines(), 1):
        if line.rstrip().endswith("# " + marker):
            return i
    raise AssertionError(marker)


def user_frames(exc):
    return [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(HERE)]


# --- printing ---------------------------------------------------------------------------

class Printing(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        with ferric.no_grad():
            self.fc.weight.copy_(ferric.tensor([[1.0, 2.0], [3.0, 4.0]]))
            self.fc.bias.fill_(0.5)

    def forward(self, x):
        h = self.fc(x)
        print(h)
        print(h.shape, h.requires_grad, h.grad_fn.name())
        print(f"mean={h.mean().item():.2f}")
        return h.relu()


def test_print_inside_forward_shows_values(capsys):
    out = Printing()(ferric.ones(1, 2))
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "tensor([[3.5000, 7.5000]], grad_fn=<AddmmBackward0>)",
        "ferric.Size([1, 2]) True AddmmBackward0",
        "mean=5.50",
    ]
    out.sum().backward()  # printing did not disturb the graph


def test_print_gradients_from_a_hook(capsys):
    x = ferric.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: print("grad of y:", g))
    y.sum().backward()
    assert capsys.readouterr().out == "grad of y: tensor([1., 1.])\n"


# --- tracebacks -------------------------------------------------------------------------

class BadMatmul(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(ferric.ones(4, 5))

    def forward(self, x):
        h = x * 2
        return h @ self.w  # bad matmul


class WrongLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)  # wrong in_features


def with_hooks(m):
    m.register_forward_pre_hook(lambda mod, args: None)
    m.register_forward_hook(lambda mod, args, out: None)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    return m


@pytest.mark.parametrize("build, marker, fragment", [
    (BadMatmul, "bad matmul", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    (lambda: with_hooks(BadMatmul()), "bad matmul", "(2x3 and 4x5)"),
    (lambda: nn.Sequential(nn.Identity(), BadMatmul()), "bad matmul", "(2x3 and 4x5)"),
    (WrongLinear, "wrong in_features", "(2x3 and 4x2)"),
    (lambda: with_hooks(WrongLinear()), "wrong in_features", "(2x3 and 4x2)"),
])
def test_error_in_forward_points_at_the_users_line(build, marker, fragment):
    model = build()
    with pytest.raises(RuntimeError) as info:
        model(ferric.ones(2, 3))  # the call
    assert fragment in str(info.value)
    frames = user_frames(info.value)
    assert frames[0].lineno == marked_line("the call")
    assert frames[-1].lineno == marked_line(marker)
    assert frames[-1].name == "forward"
    # nothing between the call and the forward line swallows or re-raises the error
    rendered = "".join(traceback.format_exception(info.value))
    assert rendered.count("Traceback") == 1
    assert "During handling" not in rendered


def test_anomaly_mode_names_the_forward_line_of_a_module():
    class Sqrt(nn.Module):
        def forward(self, x):
            return x.sqrt() * 0.0  # nan source

    x = ferric.tensor([0.0, 4.0], requires_grad=True)
    with ferric.autograd.detect_anomaly():
        y = Sqrt()(x)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    msg = str(info.value)
    assert "SqrtBackward0" in msg and "nan" in msg
    assert f'line {marked_line("nan source")}' in msg and "in forward" in msg


# --- the documentation ------------------------------------------------------------------

def doc_blocks():
    text = DOC.read_text()
    assert text.startswith("## Debugging")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_doc_has_examples():
    assert len(doc_blocks()) >= 5


@pytest.mark.parametrize("i", range(len(doc_blocks())))
def test_doc_example_runs(i, tmp_path, monkeypatch, capsys):
    code = doc_blocks()[i]
    if "render(" in code and shutil.which("dot") is None:
        pytest.skip("Graphviz not installed")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{DOC.name}[{i}]", "exec"), {"__name__": "__doc_example__"})
