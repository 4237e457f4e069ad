"""ratingdb.cli.values converts a value exactly as Typer does, for every option and argument of every command.

The command line converts simple values without pydantic (start-up time); whatever it converts must be
what Typer's own conversion returns, and whatever Typer refuses must be refused with Typer's message.
"""

from __future__ import annotations

from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._click import Context
from typer._coercion import build_runtime_param
from typer.main import get_command

from ratingdb.cli import app
from ratingdb.cli.values import DECLINED, QuickRuntimeParam, quick_value


def _parameters() -> list[tuple[Any, Any]]:
    """(command, parameter) for every parameter of every command and group."""
    found: list[tuple[Any, Any]] = []

    def walk(command: Any) -> None:
        found.extend((command, param) for param in command.params if hasattr(param, "type_descriptor"))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(get_command(app))
    return found


PARAMETERS = _parameters()

# Text as a user types it, numbers written in every way, and the typed defaults Typer passes on.
NUMBER_TEXT = st.from_regex(r"[ +-]?[0-9_]{0,22}(\.[0-9]{0,17})?([eE][+-]?[0-9]{1,3})?[ ]?", fullmatch=True)
SCALARS = st.one_of(
    st.text(max_size=30),
    NUMBER_TEXT,
    st.sampled_from(["0", "00", "-0", "1.0", "1e3", "inf", "nan", "true", "1_000", " 7", "7 ", "٣"]),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False),
    st.booleans(),
)


def _outcome(runtime: Any, param: Any, ctx: Context, value: Any) -> tuple[str, Any]:
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as exc:
        return "refused", exc.format_message()
    return type(result).__name__, repr(result)  # repr: nan equals nan, -0.0 differs from 0.0


def test_every_parameter_is_converted_by_ratingdb_cli_values() -> None:
    assert len(PARAMETERS) > 150
    for _, param in PARAMETERS:
        assert isinstance(param.get_runtime_param(), QuickRuntimeParam), param.name


@settings(max_examples=3000, deadline=None)
@given(index=st.integers(min_value=0, max_value=len(PARAMETERS) - 1), data=st.data())
def test_a_value_converts_as_typer_converts_it(index: int, data: st.DataObject) -> None:
    command, param = PARAMETERS[index]
    multiple = param.multiple or param.nargs == -1
    value = data.draw(st.lists(SCALARS, max_size=3).map(tuple) if multiple else SCALARS)
    ctx = Context(command)
    ours = _outcome(param.get_runtime_param(), param, ctx, value)
    typers = _outcome(build_runtime_param(param.type_descriptor), param, ctx, value)
    assert ours == typers


@pytest.mark.parametrize(
    ("text", "number"), [("0", 0), ("7", 7), ("2000", 2000), ("99999999999", 99_999_999_999)]
)
def test_whole_numbers_written_as_digits_need_no_pydantic(text: str, number: int) -> None:
    int_params = [p for _, p in PARAMETERS if p.type_descriptor.annotation is int and p.min is None]
    assert int_params
    assert quick_value(int_params[0].type_descriptor, text, multiple=False) == number


@pytest.mark.parametrize("text", ["-5", "+5", " 5", "5 ", "05", "1_000", "5.0", "٣", "", "1" * 19])
def test_any_other_writing_of_a_number_is_left_to_typer(text: str) -> None:
    int_params = [p for _, p in PARAMETERS if p.type_descriptor.annotation is int]
    assert quick_value(int_params[0].type_descriptor, text, multiple=False) is DECLINED
