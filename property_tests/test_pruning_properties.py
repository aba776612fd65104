"""LLM pruning on random rankings, with a scripted relevance oracle: the three
modes keep what docs/search.md says, and their calls stay within each bound."""

import json
from collections.abc import Sequence

from hypothesis import given, note
from hypothesis import strategies as st

from graphmem.core.pruning import call_bound, plan_windows, protected_count, prune_ranks
from graphmem.search.prune import PruneConfig, prompt_documents, prune_with_report

MODES = ("fast", "extended", "exhaustive")
relevance_lists = st.lists(st.booleans(), max_size=30)
fractions = st.sampled_from((0.0, 0.1, 0.25, 0.5, 1.0)) | st.floats(0, 1)
probe_counts = st.integers(1, 8)


class Oracle:
    """Answers from a fixed relevance list and records every position asked."""

    def __init__(self, relevant: list[bool]) -> None:
        self.relevant = relevant
        self.asked: list[int] = []
        self.calls = 0

    def __call__(self, groups: Sequence[Sequence[int]]) -> list[dict[int, bool]]:
        self.calls += len(groups)
        for group in groups:
            self.asked.extend(group)
        return [{p: self.relevant[p] for p in group} for group in groups]


def _run(relevant: list[bool], mode: str, fraction: float, probes: int) -> tuple[Oracle, tuple]:
    oracle = Oracle(relevant)
    outcome = prune_ranks(oracle, len(relevant), mode, fraction, probes)
    note(f"asked={oracle.asked} kept={outcome.kept}")
    assert outcome.calls == oracle.calls
    return oracle, outcome.kept


@given(
    relevant=relevance_lists, mode=st.sampled_from(MODES), fraction=fractions, probes=probe_counts
)
def test_protected_prefix_always_kept(relevant, mode, fraction, probes) -> None:
    _, kept = _run(relevant, mode, fraction, probes)
    assert set(range(protected_count(len(relevant), fraction))) <= set(kept)


@given(
    relevant=relevance_lists, mode=st.sampled_from(MODES), fraction=fractions, probes=probe_counts
)
def test_output_is_an_ordered_subsequence(relevant, mode, fraction, probes) -> None:
    _, kept = _run(relevant, mode, fraction, probes)
    assert list(kept) == sorted(set(kept))
    assert all(0 <= p < len(relevant) for p in kept)


@given(relevant=relevance_lists, fraction=fractions)
def test_exhaustive_keeps_protected_prefix_plus_relevant(relevant, fraction) -> None:
    oracle, kept = _run(relevant, "exhaustive", fraction, 1)
    protected = protected_count(len(relevant), fraction)
    assert set(kept) == set(range(protected)) | {p for p, r in enumerate(relevant) if r}
    assert sorted(oracle.asked) == list(range(len(relevant)))


@given(relevant=relevance_lists, fraction=fractions, probes=probe_counts)
def test_fast_never_keeps_an_evaluated_irrelevant_document(relevant, fraction, probes) -> None:
    oracle, kept = _run(relevant, "fast", fraction, probes)
    protected = protected_count(len(relevant), fraction)
    assert not [p for p in kept if p >= protected and p in oracle.asked and not relevant[p]]


@given(relevant=relevance_lists, fraction=fractions, probes=probe_counts)
def test_extended_keeps_evaluated_irrelevant_only_below_an_all_relevant_window(
    relevant, fraction, probes
) -> None:
    oracle, kept = _run(relevant, "extended", fraction, probes)
    n = len(relevant)
    protected = protected_count(n, fraction)
    good = [w for w in plan_windows(protected, n, probes) if all(relevant[p] for p in w)]
    cutoff = max((w[-1] for w in good), default=protected - 1)
    for p in kept:
        if p >= protected and p in oracle.asked and not relevant[p]:
            assert p <= cutoff
    # and every relevant document it evaluated is kept
    assert {p for p in oracle.asked if relevant[p]} <= set(kept)


@given(
    relevant=relevance_lists, mode=st.sampled_from(MODES), fraction=fractions, probes=probe_counts
)
def test_calls_within_each_modes_bound(relevant, mode, fraction, probes) -> None:
    oracle, _ = _run(relevant, mode, fraction, probes)
    n = len(relevant)
    bound = call_bound(mode, n, protected_count(n, fraction), probes)
    assert oracle.calls <= bound
    assert bound == n if mode == "exhaustive" else bound <= probes
    assert len(oracle.asked) == len(set(oracle.asked))  # a document is asked about once


@given(relevant=relevance_lists, fraction=fractions, probes=probe_counts)
def test_fast_asks_no_more_than_extended(relevant, fraction, probes) -> None:
    fast, _ = _run(relevant, "fast", fraction, probes)
    extended, _ = _run(relevant, "extended", fraction, probes)
    assert set(fast.asked) <= set(extended.asked)


class JudgingLlm:
    """A chat LLM that judges each listed document by a word it contains."""

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages, *, json_schema=None) -> str:
        self.calls += 1
        prompt = messages[-1]["content"]
        listed = enumerate(prompt_documents(prompt))
        return json.dumps({"judgements": [{"index": i, "relevant": "yes" in t} for i, t in listed]})


@given(relevant=relevance_lists, mode=st.sampled_from(MODES), fraction=fractions)
def test_stage_through_the_prompt_matches_the_oracle(relevant, mode, fraction) -> None:
    hits = [(f"r{i:02d}", i / 100) for i in range(len(relevant))]
    texts = {f"r{i:02d}": ("yes" if r else "no") + f" doc {i}" for i, r in enumerate(relevant)}
    llm = JudgingLlm()
    config = PruneConfig(pruner=llm, mode=mode, protected_fraction=fraction, probes=3, query="q")
    kept, report = prune_with_report(hits, config, texts)
    _, expected = _run(relevant, mode, fraction, 3)
    assert kept == [hits[p] for p in expected]
    assert report.calls == llm.calls <= report.bound


def test_fast_stops_after_the_first_window_when_it_holds_an_irrelevant_document() -> None:
    relevant = [True, False, True, True, True, True, True, True, True, True]
    oracle = Oracle(relevant)
    outcome = prune_ranks(oracle, len(relevant), "fast", 0.0, 4)
    assert oracle.calls == outcome.calls == 1 and oracle.asked == [0, 1]
    assert outcome.kept == (0,)


def test_fast_asks_the_lower_half_of_open_windows_concurrently() -> None:
    batches: list[int] = []

    def ask(groups):
        batches.append(len(groups))
        return [{p: True for p in g} for g in groups]

    outcome = prune_ranks(ask, 40, "fast", 0.0, 8)
    assert batches == [1, 4, 2, 1]  # 7 open windows after the first: 4, then 2, then 1
    assert outcome.kept == tuple(range(40))
