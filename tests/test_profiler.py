"""``ferric.profiler`` and ``ferric.autograd.profiler``: what a profile records (op names,
nesting, self times, backward nodes, shapes, stacks), that it leaves nothing behind, and
the printed table and schedules against PyTorch 2.13's (``tests/fixtures/profiler``:
synthetic profiles with fixed times, so the tables must match character for character)."""

from __future__ import annotations

import gzip
import json
import pathlib
import sys
import warnings

import pytest

import ferric
import ferric.nn.functional as F
from ferric.autograd import profiler as legacy
from ferric.profiler import (
    EventList,
    FunctionEvent,
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)

HERE = pathlib.Path(__file__).parent / "fixtures" / "profiler"
sys.path.insert(0, str(HERE))

from profiler_cases import PROFILES, SCHEDULES, STEPS, TABLES  # noqa: E402

FIXTURE = json.loads((HERE / "profiler.json").read_text())


def _events(rows):
    """An EventList of the synthetic rows, nested by time as a profile nests them."""
    evs = EventList()
    stack: list = []
    for i, (name, t0, t1, shapes) in enumerate(rows):
        e = FunctionEvent(i + 1, name, 1, t0, t1, shapes)
        while stack and stack[-1].time_range.end < t1:
            stack.pop()
        if stack:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
        evs.append(e)
    return evs


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
@pytest.mark.parametrize("table_name", sorted(TABLES))
def test_table_prints_as_pytorch(profile_name, table_name):
    kwargs, by_shape = TABLES[table_name]
    avg = _events(PROFILES[profile_name]).key_averages(group_by_input_shapes=by_shape)
    assert avg.table(**kwargs) == FIXTURE["tables"][f"{profile_name}/{table_name}"]


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_event_table_prints_as_pytorch(profile_name):
    assert _events(PROFILES[profile_name]).table() == FIXTURE["tables"][f"{profile_name}/events"]


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_actions_as_pytorch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = schedule(**SCHEDULES[name])
    assert [s(i).name for i in range(STEPS)] == FIXTURE["schedules"][name]


def test_schedule_rejects_bad_arguments_and_warns_without_warmup():
    with pytest.raises(AssertionError):
        schedule(wait=0, warmup=1, active=0)
    with pytest.warns(UserWarning, match="warmup"):
        schedule(wait=1, warmup=0, active=1)


def _model_step():
    m = ferric.nn.Linear(4, 3)
    x = ferric.randn(2, 4, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            y = F.relu(m(x)).sum()
        y.backward()
    return prof, m, x


def test_records_ops_user_ranges_and_backward_nodes_nested():
    prof, m, _ = _model_step()
    evs = prof.events()
    names = [e.name for e in evs]
    for expected in ("model_inference", "aten::linear", "aten::relu", "aten::sum",
                     "autograd::engine::evaluate_function: SumBackward0", "SumBackward0",
                     "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                     "torch::autograd::AccumulateGrad"):
        assert expected in names, (expected, names)
    top = evs[names.index("model_inference")]
    assert {c.name for c in top.cpu_children} == {"aten::linear", "aten::relu", "aten::sum"}
    assert all(c.cpu_parent is top for c in top.cpu_children)
    # self time is what the children leave
    inner = sum(c.cpu_time_total for c in top.cpu_children)
    assert top.self_cpu_time_total == pytest.approx(top.cpu_time_total - inner)
    ev = evs[names.index("autograd::engine::evaluate_function: SumBackward0")]
    assert [c.name for c in ev.cpu_children] == ["SumBackward0"]
    # times are ordered and nested
    for e in evs:
        assert e.time_range.start <= e.time_range.end
        for c in e.cpu_children:
            assert e.time_range.start <= c.time_range.start <= c.time_range.end \
                <= e.time_range.end
    # shapes of the inputs, [] for a non-tensor
    lin = evs[names.index("aten::linear")]
    assert lin.input_shapes == [[2, 4], [3, 4], [3]]
    assert m.weight.grad is not None


def test_key_averages_count_and_sum_calls():
    x = ferric.ones(3)
    with profile() as prof:
        for _ in range(4):
            x = x * 2
        x = x + 1
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mul"].count == 4
    assert avg["aten::add"].count == 1
    muls = [e for e in prof.events() if e.name == "aten::mul"]
    assert avg["aten::mul"].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in muls))
    assert avg["aten::mul"].cpu_time == pytest.approx(avg["aten::mul"].cpu_time_total / 4)
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    assert "aten::mul" in table and table.endswith("\n")
    assert "Self CPU time total:" in table


def test_operators_methods_and_functions_get_aten_names():
    a, b = ferric.ones(2, 2), ferric.ones(2, 2)
    with profile() as prof:
        a + b
        a.add(b)
        ferric.add(a, b)
        a @ b
        a[0]
        ferric.linalg.norm(a)
        F.softmax(a, dim=0)
    names = [e.name for e in prof.events() if e.cpu_parent is None]
    assert names == ["aten::add", "aten::add", "aten::add", "aten::matmul", "aten::index",
                     "aten::linalg_norm", "aten::softmax"]


def test_everything_is_put_back_even_after_an_error():
    before = (ferric.add, ferric.Tensor.__add__, ferric.Tensor.sum, F.relu, ferric._core.mm)
    with pytest.raises(ValueError):
        with profile():
            raise ValueError("boom")
    after = (ferric.add, ferric.Tensor.__add__, ferric.Tensor.sum, F.relu, ferric._core.mm)
    assert all(x is y for x, y in zip(before, after, strict=True))
    with profile() as prof:
        pass
    assert len(prof.events()) == 0
    # nothing is recorded outside a profile
    r = record_function("outside")
    with r:
        ferric.ones(2).sum()


def test_one_profile_at_a_time():
    with profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with profile():
                pass


def test_with_stack_names_the_callers_line():
    with profile(with_stack=True) as prof:
        ferric.ones(2).exp()
    (e,) = [e for e in prof.events() if e.name == "aten::exp"]
    assert e.stack and "test_profiler.py" in e.stack[0]
    avg = prof.key_averages(group_by_stack_n=1)
    assert "Source Location" in avg.table()


def test_schedule_steps_and_trace_handler(tmp_path):
    traces = []
    s = schedule(wait=1, warmup=1, active=2, repeat=2)
    x = ferric.ones(3)
    with profile(schedule=s, on_trace_ready=traces.append) as prof:
        for step in range(10):
            x = x * 1.0
            x.sum(dim=0, keepdim=False) if step % 2 else x.sum()
            prof.step()
    # two cycles each hand one trace over, of their two active steps
    assert len(traces) == 2
    assert prof.step_num == 10
    muls = [e for e in prof.events() if e.name == "aten::mul"]
    assert len(muls) == 2
    handler = tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w0", use_gzip=True)
    with profile(on_trace_ready=handler):
        ferric.ones(2).neg()
    (f,) = list((tmp_path / "log").iterdir())
    assert f.name.startswith("w0.") and f.name.endswith(".pt.trace.json.gz")
    doc = json.loads(gzip.open(f).read())
    assert [e["name"] for e in doc["traceEvents"]] == ["aten::ones", "aten::neg"]


def test_chrome_trace_is_valid_json(tmp_path):
    with profile(record_shapes=True) as prof:
        (ferric.ones(2, 3) * 3).sum()
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    ev = [e for e in doc["traceEvents"] if e["name"] == "aten::mul"][0]
    assert ev["ph"] == "X" and ev["dur"] >= 0 and ev["args"]["Input Dims"] == [[2, 3], []]
    with pytest.raises(RuntimeError):
        prof.key_averages().export_chrome_trace(str(path))


def test_unrecorded_options_warn():
    with pytest.warns(UserWarning, match="profile_memory"):
        profile(profile_memory=True)
    with pytest.raises(RuntimeError, match="memory"):
        profile().export_memory_timeline("x.html")
    assert ferric.profiler.supported_activities() == {ProfilerActivity.CPU}
    assert ProfilerAction.RECORD_AND_SAVE.name == "RECORD_AND_SAVE"


def test_legacy_autograd_profiler():
    x = ferric.ones(2, requires_grad=True)
    with legacy.profile(record_shapes=True) as prof:
        (x * 2).sum().backward()
    names = [e.name for e in prof.function_events]
    assert "aten::mul" in names and "MulBackward0" in names
    text = str(prof)
    assert text.splitlines()[1].split()[:3] == ["Name", "Self", "CPU"]
    assert prof.self_cpu_time_total > 0
    with legacy.profile(enabled=False) as off:
        x * 2
    assert off.function_events is None
    with pytest.raises(AssertionError):
        legacy.profile(use_cuda=True)
    assert ferric.autograd.profiler_util.EventList is EventList


def test_record_function_as_decorator():
    @record_function("my_fn")
    def f(t):
        return t * 2

    with profile() as prof:
        f(ferric.ones(2))
    evs = prof.events()
    top = [e for e in evs if e.name == "my_fn"]
    assert len(top) == 1 and [c.name for c in top[0].cpu_children] == ["aten::mul"]
    assert top[0].is_user_annotation
