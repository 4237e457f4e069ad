"""Option and argument values that need no pydantic: Typer's own result for them, without its start-up cost.

Typer 0.29 converts every value a command receives through a pydantic TypeAdapter, and importing pydantic
costs a command about 65 ms of CPU before it does anything (`calc` about a quarter of its start-up). Most
values are simple: a text option, a whole number written as digits, an option left out. For exactly those
this module returns what Typer's adapter returns; for anything else (a path, a value with a sign or
spaces, a number out of range, an environment variable's text for a flag) it hands the value to Typer's own
conversion, so every message a user can see is still Typer's. tests/cli/test_values.py compares the two
on every option and argument of every command, for any text.

It hooks into Typer's parameter (`get_runtime_param`, typer._coercion), so pyproject pins Typer to the minor
release these tests ran with (0.29); a release that changes them fails tests/cli/test_values.py, or
tests/cli/test_startup.py when pydantic comes back, not users.
Imports only Typer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param

if TYPE_CHECKING:
    from typer._click import Context

# A whole number as digits, without a sign, leading zeros or spaces, short enough for any int column:
# int() and pydantic read it alike. Anything else is left to pydantic.
_WHOLE_NUMBER: Final = re.compile(r"(?:0|[1-9][0-9]{0,17})")
# A decimal such as 5 or 2.5, read alike by float() and pydantic.
_DECIMAL: Final = re.compile(r"(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?")


class _Declined:
    """The value is not one this module converts: Typer converts it."""


DECLINED: Final = _Declined()


def quick_value(descriptor: TypeDescriptor, value: Any, *, multiple: bool) -> Any:
    """What Typer's conversion returns for `value`, or DECLINED when it is not certain here.

    `value` is never None (Typer's RuntimeParam.coerce answers None itself).
    """
    info = descriptor.parameter_info
    if info.parser is not None or descriptor.file_annotation is not None:
        return DECLINED
    annotation = descriptor.annotation
    if multiple:
        if annotation != list[str] or not isinstance(value, tuple | list):
            return DECLINED
        if all(type(item) is str for item in value):
            return list(value)
        return DECLINED
    if annotation is str:
        return value if type(value) is str else DECLINED
    if annotation is int:
        return _whole_number(value, info.min, info.max, info.clamp)
    if annotation is float and info.min is None and info.max is None:
        if type(value) is float:
            return value
        if type(value) is str and _DECIMAL.fullmatch(value):
            return float(value)
    return DECLINED


def _whole_number(value: Any, low: float | None, high: float | None, clamp: bool) -> Any:
    if type(value) is int:
        number = value
    elif type(value) is str and _WHOLE_NUMBER.fullmatch(value):
        number = int(value)
    else:
        return DECLINED
    if clamp or (low is not None and number < low) or (high is not None and number > high):
        return DECLINED  # Typer clamps, or says what the bounds are
    return number


class QuickRuntimeParam(RuntimeParam):
    """Typer's RuntimeParam (it answers a missing value) converting simple values itself, see the module."""

    def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
        quick = quick_value(param.type_descriptor, value, multiple=param.multiple or param.nargs == -1)
        if quick is not DECLINED:
            return quick
        return typer_runtime_param(param)._coerce_value(value, param=param, ctx=ctx)


def quick_runtime_param(param: Any) -> RuntimeParam:
    """What a Typer parameter's get_runtime_param returns in ratingdb (ratingdb/cli/app.py)."""
    if param._runtime_param is None:
        descriptor = param.type_descriptor
        param._runtime_param = QuickRuntimeParam(descriptor.parameter_info, descriptor.annotation)
    return param._runtime_param


def typer_runtime_param(param: Any) -> RuntimeParam:
    """Typer's own conversion for `param`, built on first use: this is what imports pydantic."""
    own: RuntimeParam | None = getattr(param, "_typer_runtime_param", None)
    if own is None:
        own = param._typer_runtime_param = build_runtime_param(param.type_descriptor)
    return own
