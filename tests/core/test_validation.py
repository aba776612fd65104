"""graphmem.core.validation and graphmem.core.relations: pure argument checks."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from graphmem import InvalidArgumentError
from graphmem.core.relations import BUILTIN_OPPOSITES, is_lifecycle, resolve_opposite
from graphmem.core.validation import (
    check_content,
    check_hops,
    check_id,
    check_metadata,
    check_metadata_filter,
    check_non_negative,
    check_optional_id,
    check_positive,
    check_record_type,
    check_record_types,
    check_timestamp,
    check_ttl_days,
    expiry,
    format_time,
    parse_time,
)

UTC = timezone.utc


def _argument(call) -> str:
    with pytest.raises(InvalidArgumentError) as info:
        call()
    return info.value.argument


def test_check_id_accepts_128_chars() -> None:
    assert check_id("memory_id", "x" * 128) == "x" * 128


@pytest.mark.parametrize("value", ["x" * 129, "", None, 5, "a\x00b"])
def test_check_id_rejects(value: object) -> None:
    assert _argument(lambda: check_id("memory_id", value)) == "memory_id"


def test_check_optional_id_none() -> None:
    assert check_optional_id("user_id", None) is None


def test_check_optional_id_rejects_empty() -> None:
    assert _argument(lambda: check_optional_id("user_id", "")) == "user_id"


@pytest.mark.parametrize("value", ["", " ", "\n\t", None, 3])
def test_check_content_rejects(value: object) -> None:
    assert _argument(lambda: check_content(value)) == "content"


def test_check_content_keeps_whitespace_around_text() -> None:
    assert check_content("  x \n") == "  x \n"


@pytest.mark.parametrize("value", ["memory", "fact", "preference", "guideline"])
def test_check_record_type_accepts(value: str) -> None:
    assert check_record_type("memory_type", value) == value


@pytest.mark.parametrize("value", ["message", "Memory", "", None])
def test_check_record_type_rejects(value: object) -> None:
    assert _argument(lambda: check_record_type("memory_type", value)) == "memory_type"


def test_check_record_types_sorted_and_deduplicated() -> None:
    assert check_record_types(["fact", "memory", "fact"]) == ("fact", "memory")


def test_check_record_types_string_is_one_type() -> None:
    assert check_record_types("fact") == ("fact",)


def test_check_record_types_none_is_all() -> None:
    assert check_record_types(None) is None


@pytest.mark.parametrize("value", [[], ["message"], 5, ["fact", 1]])
def test_check_record_types_rejects(value: object) -> None:
    assert _argument(lambda: check_record_types(value)) == "record_types"


def test_check_metadata_none_is_empty() -> None:
    assert check_metadata("metadata", None) == {}


def test_check_metadata_copies_to_plain_json() -> None:
    given = {"t": (1, 2), "n": {"x": None}}
    result = check_metadata("metadata", given)
    assert result == {"t": [1, 2], "n": {"x": None}}
    assert result["n"] is not given["n"]


@pytest.mark.parametrize(
    "value",
    [
        {1: "x"},
        {"k": {1, 2}},
        {"k": math.nan},
        {"k": -math.inf},
        {"k": 2**63},
        {"k": -(2**63) - 1},
        {"k": b"bytes"},
        {"k": datetime(2026, 1, 1)},
        "text",
        ["list"],
    ],
)
def test_check_metadata_rejects(value: object) -> None:
    assert _argument(lambda: check_metadata("metadata", value)) == "metadata"


def test_check_metadata_int64_bounds_accepted() -> None:
    assert check_metadata("metadata", {"a": 2**63 - 1, "b": -(2**63)}) == {
        "a": 2**63 - 1,
        "b": -(2**63),
    }


def test_check_metadata_too_deep_rejected() -> None:
    value: object = "leaf"
    for _ in range(40):
        value = {"k": value}
    assert _argument(lambda: check_metadata("metadata", value)) == "metadata"


def test_check_metadata_filter_scalars() -> None:
    assert check_metadata_filter({"a": 1, "b": "x", "c": None, "d": True}) == {
        "a": 1,
        "b": "x",
        "c": None,
        "d": True,
    }


def test_check_metadata_filter_empty_is_none() -> None:
    assert check_metadata_filter({}) is None


@pytest.mark.parametrize("value", [{"k": [1]}, {"k": {"x": 1}}, {"k": math.nan}, {2: "x"}])
def test_check_metadata_filter_rejects(value: object) -> None:
    assert _argument(lambda: check_metadata_filter(value)) == "metadata_filter"


def test_check_timestamp_none() -> None:
    assert check_timestamp("timestamp", None) is None


def test_check_timestamp_naive_is_utc() -> None:
    assert check_timestamp("timestamp", datetime(2026, 1, 1, 5)) == datetime(
        2026, 1, 1, 5, tzinfo=UTC
    )


def test_check_timestamp_converts_to_utc() -> None:
    tz = timezone(timedelta(hours=-5))
    result = check_timestamp("timestamp", datetime(2026, 1, 1, 5, tzinfo=tz))
    assert result == datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert result is not None and result.utcoffset() == timedelta(0)


def test_check_timestamp_iso_text() -> None:
    assert check_timestamp("timestamp", "2026-01-01T05:00:00Z") == datetime(
        2026, 1, 1, 5, tzinfo=UTC
    )


@pytest.mark.parametrize("value", ["yesterday", "2026-13-01", 1.5, 0])
def test_check_timestamp_rejects(value: object) -> None:
    assert _argument(lambda: check_timestamp("timestamp", value)) == "timestamp"


@pytest.mark.parametrize("value", [0.001, 1, 365_000])
def test_check_ttl_days_accepts(value: float) -> None:
    assert check_ttl_days(value) == float(value)


@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf, True, "1", 365_001])
def test_check_ttl_days_rejects(value: object) -> None:
    assert _argument(lambda: check_ttl_days(value)) == "ttl_days"


def test_expiry_adds_days() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    assert expiry(start, 0.5) == start + timedelta(hours=12)
    assert expiry(start, None) is None


@pytest.mark.parametrize("value", [0, 1, 2, 3, 4, 5])
def test_check_hops_accepts(value: int) -> None:
    assert check_hops(value) == value


@pytest.mark.parametrize("value", [6, -1, True, False, 1.0, "1", None])
def test_check_hops_rejects(value: object) -> None:
    assert _argument(lambda: check_hops(value)) == "num_hops"


def test_check_hops_message_names_range() -> None:
    with pytest.raises(InvalidArgumentError, match="0 to 5"):
        check_hops(6)


@pytest.mark.parametrize("value", [-1, True, 1.0, None])
def test_check_non_negative_rejects(value: object) -> None:
    assert _argument(lambda: check_non_negative("max_results", value)) == "max_results"


def test_check_non_negative_accepts_zero() -> None:
    assert check_non_negative("max_results", 0) == 0


@pytest.mark.parametrize("value", [0, -1, True])
def test_check_positive_rejects(value: object) -> None:
    assert _argument(lambda: check_positive("limit", value)) == "limit"


def test_format_time_fixed_width_and_sortable() -> None:
    early = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    late = datetime(2026, 1, 2, 3, 4, 5, 1, tzinfo=UTC)
    assert format_time(early) == "2026-01-02T03:04:05.000000+00:00"
    assert format_time(early) < format_time(late)
    assert len(format_time(early)) == len(format_time(late))


def test_format_time_converts_offset() -> None:
    tz = timezone(timedelta(hours=2))
    assert format_time(datetime(2026, 1, 1, 2, tzinfo=tz)) == "2026-01-01T00:00:00.000000+00:00"


def test_parse_time_round_trip() -> None:
    value = datetime(2026, 7, 8, 9, 10, 11, 123456, tzinfo=UTC)
    assert parse_time(format_time(value)) == value


# relations ----------------------------------------------------------------------


@pytest.mark.parametrize(("rtype", "opposite"), list(BUILTIN_OPPOSITES.items()))
def test_resolve_opposite_builtin(rtype: str, opposite: str) -> None:
    assert resolve_opposite(rtype, None) == (rtype, opposite)


def test_builtin_opposites_table() -> None:
    assert BUILTIN_OPPOSITES == {
        "supersedes": "is_superseded_by",
        "refines": "is_refined_by",
        "duplicates": "duplicates",
        "supports": "is_supported_by",
        "contradicts": "contradicts",
    }


@pytest.mark.parametrize(
    ("rtype", "lifecycle"),
    [
        ("supersedes", True),
        ("refines", True),
        ("duplicates", True),
        ("supports", False),
        ("contradicts", False),
        ("mentions", False),
    ],
)
def test_is_lifecycle(rtype: str, lifecycle: bool) -> None:
    assert is_lifecycle(rtype) is lifecycle


def test_resolve_opposite_custom() -> None:
    assert resolve_opposite("mentions", "is_mentioned_by") == ("mentions", "is_mentioned_by")


@pytest.mark.parametrize(
    ("rtype", "opposite", "argument"),
    [
        ("mentions", None, "opposite_relation_type"),
        ("supersedes", "replaces", "opposite_relation_type"),
        ("REFINES", "x", "relation_type"),
        ("", None, "relation_type"),
        (" padded", "x", "relation_type"),
        ("t" * 65, "x", "relation_type"),
        ("mentions", "o" * 65, "opposite_relation_type"),
        ("mentions", " ", "opposite_relation_type"),
    ],
)
def test_resolve_opposite_rejects(rtype: str, opposite: object, argument: str) -> None:
    assert _argument(lambda: resolve_opposite(rtype, opposite)) == argument
