"""Scope filters on random graphs whose links cross users: no out-of-scope record
is returned, directly or as linked context, nor used as a stepping stone."""

import itertools

from hypothesis import given, note
from hypothesis import strategies as st

from graphmem import GraphMemory
from graphmem.testing.model import ManualClock
from graphmem.testing.shape import expected_tree_rows, flatten_result
from graphmem.testing.strategies import USERS, GraphSpec, SearchArgs, graphs, load_graph


@given(spec=graphs(), user=st.sampled_from(USERS), num_hops=st.integers(1, 5))
def test_scope_no_out_of_scope_record_anywhere(spec: GraphSpec, user: str, num_hops: int) -> None:
    clock = ManualClock()
    with GraphMemory(":memory:", clock=clock) as memory:
        model = load_graph(memory, clock, spec)
        results = memory.search(
            "pizza",
            user_id=user,
            max_results=100,
            num_hops=num_hops,
            max_linked_results=None,
            include_invalid_results=True,
        )
    for result in results:
        assert model.memories[result.id].user_id == user
        for row in flatten_result(result):
            assert model.memories[row.node].user_id == user, row


@given(spec=graphs(), user=st.sampled_from(USERS), num_hops=st.integers(1, 5))
def test_scope_depths_are_distances_within_the_scope(
    spec: GraphSpec, user: str, num_hops: int
) -> None:
    """Trees equal the model's, which measures distance in the user's subgraph only:
    a shorter path through another user's memory does not count."""
    clock = ManualClock()
    args = SearchArgs(user_id=user)
    with GraphMemory(":memory:", clock=clock) as memory:
        model = load_graph(memory, clock, spec)
        results = memory.search(
            "pizza",
            **args.kwargs(),
            max_results=100,
            num_hops=num_hops,
            max_linked_results=None,
            include_invalid_results=True,
        )
    filters = args.model_filters(clock)
    for result in results:
        want = expected_tree_rows(model, result.id, model.tree(result.id, filters, num_hops, None))
        assert flatten_result(result) == want


@given(
    middle_users=st.lists(st.sampled_from(USERS), min_size=1, max_size=4),
    user=st.sampled_from(USERS),
)
def test_scope_chain_reaches_far_end_only_through_in_scope_records(
    middle_users: list[str], user: str
) -> None:
    """``start - m0 - ... - far``: the tree of ``start`` follows the chain up to the
    first memory of another user and stops there; ``far`` is reached exactly when
    every middle memory belongs to the searched user."""
    note(f"middle users {middle_users}, searching as {user}")
    chain = ["start", *(f"m{i}" for i in range(len(middle_users))), "far"]
    owners = [user, *middle_users, user]
    with GraphMemory(":memory:") as memory:
        for record_id, owner in zip(chain, owners, strict=True):
            memory.add_memory(f"Pizza note {record_id}.", memory_id=record_id, user_id=owner)
        for source, target in itertools.pairwise(chain):
            memory.link_records(source, "memory", target, "memory", "supports")
        results = memory.search(
            "pizza", user_id=user, max_results=100, num_hops=5, max_linked_results=None
        )
    start = next(r for r in results if r.id == "start")
    reached = [row.node for row in flatten_result(start)]
    in_scope = all(owner == user for owner in middle_users)
    assert ("far" in reached) == in_scope
    prefix = next((i for i, owner in enumerate(owners) if owner != user), len(chain))
    assert reached == chain[1:prefix]
