"""The Typer application object, the global options (database URL) and how help names values.

Every command and command group is made through `RatingDbTyper` (also for sub-apps such as `report`), so
that `--help` shows placeholders a person understands: an option or argument shows its `metavar=`
(`FILE...`, `YYYY-MM`, `ID`, `N`, `URL`), a flag shows no value at all (Typer 0.29 prints `<bool>`), and
the usage line reads `import-trf [OPTIONS] FILE...` instead of `{files}...`. tests/cli/test_help.py
rejects any `<type>` placeholder left in a command's help: give new options a `metavar=`.
"""

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from typer._click.globals import get_current_context  # Typer 0.29 carries its own click (pinned: pyproject)
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.models import CommandInfo, TyperInfo

from ratingdb.cli.values import quick_runtime_param

DEFAULT_URL = "sqlite:///ratingdb.sqlite"

# Help panels, in the order a rating officer meets them.
SETUP = "Set-up"
MONTHLY = "Monthly work"
LOOKUP = "Lists, players and reports"
TOOLS = "Calculator and demo"


class _PlainArgument(TyperArgument):
    """A positional argument shown by its metavar alone: `FILE...`, not `{files}... <list[Path]>`.

    Its value is converted by ratingdb.cli.values (Typer's result, without importing pydantic)."""

    def get_runtime_param(self) -> Any:
        return quick_runtime_param(self)

    def display_type_rich(self, ctx: Any) -> str | None:
        return None if self.metavar is not None else super().display_type_rich(ctx)

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required else f"[{name}]"


class _QuickOption(TyperOption):
    """An option whose value is converted by ratingdb.cli.values (Typer's result, without pydantic)."""

    def get_runtime_param(self) -> Any:
        return quick_runtime_param(self)


def _plain_params(params: list[Any]) -> None:
    for param in params:
        # Typer makes its own TyperOption and TyperArgument; only the help display and the conversion of
        # simple values differ, so the class is swapped.
        if type(param) is TyperOption:
            param.__class__ = _QuickOption
        if isinstance(param, TyperOption) and (param.is_flag or param.count) and param.metavar is None:
            param.metavar = ""  # a flag takes no value: show none
        elif type(param) is TyperArgument:
            param.__class__ = _PlainArgument


def _reflowed(help_text: str | None) -> str | None:
    """Docstring paragraphs as one line each: Typer 0.29 keeps a docstring's line breaks in the help.

    A paragraph whose first line ends with a colon ("Examples:") is a list and keeps its lines.
    """
    if not help_text:
        return help_text
    paragraphs = inspect.cleandoc(help_text).split("\n\n")
    return "\n\n".join(p if p.split("\n")[0].endswith(":") else " ".join(p.split("\n")) for p in paragraphs)


class _PlainHelp:
    """Mixed into a command or group: person-readable placeholders and reflowed paragraphs in its help."""

    params: list[Any]
    help: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain_params(self.params)
        self.help = _reflowed(self.help)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        _plain_params([option])
        return option


class RatingDbCommand(_PlainHelp, TyperCommand):
    """A command whose help shows person-readable placeholders (see the module's docstring)."""


class RatingDbGroup(_PlainHelp, TyperGroup):
    """A command group whose help shows person-readable placeholders (see the module's docstring)."""


class RatingDbTyper(typer.Typer):
    """typer.Typer whose commands and groups default to the classes above; use it for every sub-app.

    Its commands may be registered on first use (`commands_on_first_use`): the root app's are, by
    importing the command modules (ratingdb.cli.load_commands) when Typer first reads them to build the
    command line, unless the console script has already imported the one module its command needs.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", RatingDbGroup)
        self._pending: Callable[[], None] | None = None
        self._registering = 0  # a command module registering a command: what is pending is not loaded
        super().__init__(**kwargs)

    def commands_on_first_use(self, load: Callable[[], None] | None) -> None:
        """`load` registers this app's commands when they are first read; None: they are registered."""
        self._pending = load

    @property
    def registered_commands(self) -> list[CommandInfo]:
        self._load_pending()
        return self._commands

    @registered_commands.setter
    def registered_commands(self, value: list[CommandInfo]) -> None:
        self._commands = value

    @property
    def registered_groups(self) -> list[TyperInfo]:
        self._load_pending()
        return self._groups

    @registered_groups.setter
    def registered_groups(self, value: list[TyperInfo]) -> None:
        self._groups = value

    def _load_pending(self) -> None:
        if self._pending is not None and not self._registering:
            load, self._pending = self._pending, None
            load()

    @contextmanager
    def _registration(self) -> Iterator[None]:
        self._registering += 1
        try:
            yield
        finally:
            self._registering -= 1

    def command(self, *args: Any, cls: Any = None, **kwargs: Any) -> Any:
        register = super().command(*args, cls=cls or RatingDbCommand, **kwargs)

        def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
            with self._registration():
                return register(f)

        return decorator

    def add_typer(self, *args: Any, **kwargs: Any) -> None:
        with self._registration():
            super().add_typer(*args, **kwargs)


app = RatingDbTyper(
    name="ratingdb",
    help="Rating-list database for chess federations: FIDE Elo rules, monthly closes, immutable lists.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)


@dataclass
class CliState:
    """What the global options say, kept on the root Typer context (`ctx.obj`) for the commands below it."""

    url: str = DEFAULT_URL
    # Whether this command has said what its account may do past the guards (cli.common.warn_privileges).
    privileges_told: bool = False


def cli_state() -> CliState | None:
    """The state of the command being run (None outside a ratingdb command)."""
    ctx = get_current_context(silent=True)
    return ctx.find_object(CliState) if ctx is not None else None


def database_url() -> str:
    """The database URL of the command being run (--db or RATINGDB_URL), from Typer's context."""
    state = cli_state()
    if state is None:
        raise RuntimeError("database_url() is read inside a ratingdb command only")
    return state.url


@contextmanager
def using_database(url: str) -> Iterator[None]:
    """Run the commands called inside on `url` (the demo runs real commands on its own database)."""
    state = cli_state()
    assert state is not None, "using_database() runs inside a ratingdb command only"
    previous, state.url = state.url, url
    try:
        yield
    finally:
        state.url = previous


@app.callback()
def global_options(
    ctx: typer.Context,
    db: Annotated[
        str,
        typer.Option(
            "--db",
            envvar="RATINGDB_URL",
            metavar="URL",
            help="Database URL (SQLAlchemy form). SQLite file by default; "
            "e.g. postgresql+psycopg://user@host/dbname for PostgreSQL.",
            show_default=True,
        ),
    ] = DEFAULT_URL,
) -> None:
    """Rating-list database for chess federations.

    Import lists and tournaments, close monthly rating periods by the FIDE Rating Regulations,
    and publish immutable lists whose every number is explained by a stored calculation record.
    """
    ctx.obj = CliState(url=db)
