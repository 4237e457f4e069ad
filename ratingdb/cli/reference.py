"""The command reference of the documentation, written from the Typer app itself so it cannot drift.

`mkdocs build` calls `markdown()` (tools/docs_hooks.py) and publishes the result as reference/cli.md;
tests/docs/ checks that every command and option appears there and in the hand-written guide. Nothing
here runs when a command runs: the command line never imports this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer.main

from ratingdb.cli import app

INTRO = """# Commands

Every command and option of `ratingdb`, written at build time from the program's own command
definitions (the same text `ratingdb COMMAND --help` prints), so this page always matches the version
it was built from. The [guide](../guide/monthly-routine.md) says when to use which.
"""


def root() -> Any:
    """The command tree Typer builds from the app (Typer's own copy of click's classes)."""
    return typer.main.get_command(app)


def is_option(param: Any) -> bool:
    """An option (`--type T`, a flag) rather than a positional argument."""
    return bool(param.param_type_name == "option")


def walk(command: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any, Any]]:
    """Every command and group with its path below the app (the app itself first, path ())."""
    command = command or root()
    yield from _walk(command, path, None)


def _walk(command: Any, path: tuple[str, ...], parent: Any) -> Iterator[tuple[tuple[str, ...], Any, Any]]:
    ctx = command.context_class(command, info_name=path[-1] if path else "ratingdb", parent=parent)
    yield path, command, ctx
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        if not sub.hidden:
            yield from _walk(sub, (*path, name), ctx)


def documented_params(command: Any) -> list[Any]:
    """The arguments and options a person types (not --help)."""
    return [p for p in command.params if p.name != "help" and not getattr(p, "hidden", False)]


def option_names(param: Any) -> list[str]:
    """`--type`, `-t`, `--no-cap`…: every spelling of an option; an argument's metavar."""
    if is_option(param):
        return [*param.opts, *param.secondary_opts]
    return [_argument_name(param)]


def _argument_name(param: Any) -> str:
    return param.metavar or (param.name or "").upper()


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _help_markdown(text: str) -> list[str]:
    """A command's help paragraphs; a paragraph whose first line ends with ':' is a list of examples."""
    out: list[str] = []
    for paragraph in text.strip().split("\n\n"):
        lines = [line for line in paragraph.split("\n") if line.strip() != "\b"]
        if not lines:
            continue
        examples = [line.strip() for line in lines[1:]]
        if lines[0].rstrip().endswith(":") and examples and all(e.startswith("ratingdb") for e in examples):
            out += [_escape(lines[0].strip()), "", "```sh", *examples, "```", ""]
        else:
            out += [_escape(" ".join(line.strip() for line in lines)), ""]
    return out


def _param_line(param: Any, ctx: Any) -> str:
    spellings = option_names(param)
    metavar = param.metavar if is_option(param) else None
    first = f"{spellings[0]} {metavar}" if metavar else spellings[0]
    names = ", ".join(f"`{n}`" for n in [first, *spellings[1:]])
    help_text = " ".join((getattr(param, "help", None) or "").split())
    details: list[str] = []
    if param.required:
        details.append("required")
    if is_option(param):
        if param.envvar:
            envvars = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar)
            details.append("environment: " + ", ".join(f"`{e}`" for e in envvars))
        default = param.default
        if param.show_default and default not in (None, False, "", ()) and not callable(default):
            details.append(f"default: `{default}`")
        if param.multiple:
            details.append("may be repeated")
    tail = f" ({'; '.join(details)})" if details else ""
    text = f" — {_escape(help_text)}" if help_text else ""
    return f"- {names}{text}{tail}".rstrip()


def markdown() -> str:
    """The whole reference page."""
    out = [INTRO]
    for path, command, ctx in walk():
        if not path:
            out += ["## Global options", "", "Given before the command (`ratingdb --db URL list`).", ""]
            out += [_param_line(p, ctx) for p in documented_params(command)] + [""]
            continue
        name = " ".join(("ratingdb", *path))
        out += [f"{'#' * min(len(path) + 1, 4)} `{name}`", ""]
        out += _help_markdown(command.help or "")
        usage = " ".join(command.collect_usage_pieces(ctx))
        out += ["```", f"{name} {usage}".rstrip(), "```", ""]
        params = documented_params(command)
        if hasattr(command, "commands"):
            subs = [s for s in sorted(command.commands) if not command.commands[s].hidden]
            out += ["Commands: " + ", ".join(f"`{s}`" for s in subs) + ".", ""]
        if params:
            out += [_param_line(p, ctx) for p in params] + [""]
    return "\n".join(out).rstrip() + "\n"


def _main(argv: Any = None) -> None:  # pragma: no cover - a convenience for looking at the page
    print(markdown(), end="")


if __name__ == "__main__":  # pragma: no cover
    _main()
