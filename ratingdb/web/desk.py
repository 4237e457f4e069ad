"""The signed-in side of the served site: sign-in, organisers' submissions, the officer's queue and
period page, the admins' accounts page. Every handler: one write transaction, one service call, a page.

The services decide (ratingdb.services.users, ratingdb.services.submissions, the close); this module
only reads the form, hands the service the signed-in user and renders. Security, each from a library or
the database, none by a handler's good behaviour:
- the session cookie holds a random token whose SHA-256 is the server-side record (services.users):
  HttpOnly, SameSite=Strict, Secure (WebSettings.secure_cookies), ended by logout, disabling, a role change
  or a new password;
- every POST carries a CSRF token checked by fastapi-csrf-protect (signed double-submit tokens), in a
  dependency of the whole router, so no route can forget it (`protect`, `csrf_checked`); the token is
  signed with a key of the browser's session (`_csrf_key`: the site's secret and the SHA-256 of the
  session cookie), so a token and cookie pair taken from one session is refused in any other;
- every change is audited with the signed-in user as actor (session.info["actor"], read by
  services.versions.record_change);
- the pages are Jinja2 templates with autoescaping, and are never cached (Cache-Control: no-store).
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Final

import anyio.to_thread
from fastapi import APIRouter, Depends, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from ratingdb.errors import RatingDbError
from ratingdb.i18n import DEFAULT_LANGUAGE, N_, Language, translatable
from ratingdb.passwords import minimum_length
from ratingdb.rating import Period
from ratingdb.schema.models import Event, WebUser
from ratingdb.services import federation, second_factor, users
from ratingdb.services import submissions as subs
from ratingdb.services.versions import data_version
from ratingdb.templating import Templates
from ratingdb.web.deps import State, language
from ratingdb.web.state import AppState, WebSettings

COOKIE: Final = "ratingdb_session"
NO_STORE: Final = {"cache-control": "no-store"}
CSRF_FAILED: Final = (
    "the form was not sent by this site's page, or the page is too old — reload the page and send it again"
)


class SignInRequired(Exception):
    """A signed-in page asked for without a valid session: answered with the sign-in page."""


async def to_sign_in(request: Request, exc: Exception) -> Response:
    return RedirectResponse("/login", status_code=303, headers=NO_STORE)


class EnrolmentRequired(Exception):
    """A desk page asked for by an account the site requires a second factor of, which has none yet
    (serve --require-2fa): answered with the enrolment page (ratingdb.web.second_factor)."""


async def to_enrolment(request: Request, exc: Exception) -> Response:
    return RedirectResponse("/desk/second-factor", status_code=303, headers=NO_STORE)


class CsrfRefused(Exception):
    """A POST without the CSRF token of the page it came from."""


async def csrf_refused(request: Request, exc: Exception) -> Response:
    body = (
        _templates(language(request)).get_template("desk_error.html").render(message=f"Error: {CSRF_FAILED}")
    )
    return HTMLResponse(body, status_code=403, headers=NO_STORE)


CSRF_COOKIE: Final = "ratingdb_csrf"
CSRF_FIELD: Final = "csrftoken"


def protect(app: FastAPI, settings: WebSettings) -> None:
    """CSRF tokens from fastapi-csrf-protect: a signed token in an HttpOnly, SameSite=Strict cookie and the
    same token in every form (the double-submit pattern), checked by the desk router's own dependency for
    every method but GET, so that no route can forget it. A class of its own per app: the library keeps
    its settings on the class."""
    from fastapi_csrf_protect import CsrfProtect

    class SiteCsrf(CsrfProtect):
        pass

    secret = settings.secret or secrets.token_hex(32)
    app.state.csrf_secret = secret
    SiteCsrf.load_config(
        lambda: [
            ("secret_key", secret),
            ("cookie_key", CSRF_COOKIE),
            ("cookie_samesite", "strict"),
            ("cookie_secure", settings.secure_cookies),
            ("token_location", "body"),
            ("token_key", CSRF_FIELD),
            ("max_age", int(users.SESSION_LIFETIME.total_seconds())),
        ]
    )
    app.state.csrf = SiteCsrf()
    app.add_exception_handler(CsrfRefused, csrf_refused)


async def csrf_checked(request: Request) -> None:
    """Every POST of the desk router carries the token of its form (read from urlencoded or multipart)."""
    from fastapi_csrf_protect.exceptions import CsrfProtectError

    if request.method in ("GET", "HEAD"):
        return
    await request.form()  # parsed once (Starlette keeps it): the library reads the field from the form
    try:
        await request.app.state.csrf.validate_csrf(request, secret_key=_csrf_key(request))
    except CsrfProtectError:
        raise CsrfRefused from None


# What no form field or file name holds: the control characters but tab, line feed and carriage return
# (a NUL above all, which PostgreSQL refuses in any text: a 500 there, issue 54 L1).
REFUSED_IN_FIELDS: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
FIELD_REFUSED: Final = N_(
    "a field of the form holds a control character (such as NUL), which no name, note or ID contains — "
    "remove it and send the form again"
)


class FieldRefused(RatingDbError):
    """A form field or file name with a refused character (REFUSED_IN_FIELDS): 400, one sentence."""


async def fields_checked(request: Request) -> None:
    """Every field of a desk form, and the name of every file sent, is free of refused characters, checked
    here for every route of the router (the address and query are checked by web.security.Hardened)."""
    if request.method in ("GET", "HEAD"):
        return
    form = await request.form()  # parsed once (Starlette keeps it), as csrf_checked reads it
    for key, value in form.multi_items():
        text = value if isinstance(value, str) else (value.filename or "")
        if REFUSED_IN_FIELDS.search(key) or REFUSED_IN_FIELDS.search(text):
            await form.close()  # its files, which no route will read
            raise translatable(FieldRefused(FIELD_REFUSED), FIELD_REFUSED)


def _csrf_key(request: Request) -> str:
    """The key that signs the CSRF tokens of this browser's session: the site's secret with the SHA-256 of
    the session cookie (before signing in, of no cookie). Signing in, out or a new session changes it, so
    the token of one session is no good in another, and a page from before signing in gets a new one."""
    held = request.cookies.get(COOKIE) or ""
    return f"{request.app.state.csrf_secret}:{users.token_hash(held) if held else 'signed-out'}"


def _csrf_token(request: Request) -> tuple[str, str | None]:
    """The form token for a page and the signed cookie to set, None when the browser's is still good for
    this session (so a second tab's forms keep working)."""
    from itsdangerous import BadData, URLSafeTimedSerializer

    csrf = request.app.state.csrf
    key = _csrf_key(request)
    held = request.cookies.get(CSRF_COOKIE)
    if held:
        try:  # as fastapi_csrf_protect.CsrfProtect.validate_csrf reads it
            serializer = URLSafeTimedSerializer(key, salt="fastapi-csrf-token")
            return str(serializer.loads(held, max_age=csrf._max_age)), None
        except BadData:
            pass
    token, signed = csrf.generate_csrf_tokens(secret_key=key)
    return token, signed


router = APIRouter(include_in_schema=False, dependencies=[Depends(fields_checked), Depends(csrf_checked)])


# The words the pages print for a role and a submission's status, in the visitor's language.
ROLE_WORDS: Final = {"organiser": N_("organiser"), "officer": N_("officer"), "admin": N_("admin")}
STATUS_WORDS: Final = {
    "submitted": N_("submitted"),
    "changes_requested": N_("changes requested"),
    "accepted": N_("accepted"),
    "rated": N_("rated"),
    "rejected": N_("rejected"),
    "withdrawn": N_("withdrawn"),
    "replaced": N_("replaced"),
}


@cache
def _templates(language: str = DEFAULT_LANGUAGE) -> Environment:
    """The signed-in pages' templates with the translations of `language` (one environment per language,
    as ratingdb.site.publish.environment; the texts are in the same catalogues)."""
    from ratingdb.formats.limits import TITLES

    env = Templates(
        loader=PackageLoader("ratingdb.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    lang = Language(language)
    env.install_gettext_translations(lang.catalogue, newstyle=True)  # type: ignore[attr-defined]
    env.globals |= {
        "lang": lang.code,
        "count": lang.count,
        "type_word": lang.type_word,
        "type_heading": lang.type_heading,
        "role_word": lambda role: lang.gettext(ROLE_WORDS[role]) if role in ROLE_WORDS else role,
        "status_word": lambda status: (
            lang.gettext(STATUS_WORDS[status]) if status in STATUS_WORDS else status
        ),
        "roles": tuple(ROLE_WORDS),
        "password_minimum": minimum_length,
        "player_path": _player_path,
        "titles": TITLES,
    }
    return env


def _player_path(player: Any) -> str:
    """The desk's page of a player: by FIDE ID, else `national:N` (services.players.find_by_id)."""
    from urllib.parse import quote

    ident = str(player.fide_id) if player.fide_id else f"national:{player.national_id}"
    return "/desk/players/" + quote(ident, safe=":")


def render(
    request: Request, name: str, user: WebUser | None, status: int = 200, **values: Any
) -> HTMLResponse:
    token, cookie = _csrf_token(request)
    body = (
        _templates(language(request))
        .get_template(name)
        .render(user=user, csrf=token, title=_state(request).settings.title, **values)
    )
    response = HTMLResponse(body, status_code=status, headers={**NO_STORE, "vary": "Accept-Language"})
    if cookie is not None:
        request.app.state.csrf.set_csrf_cookie(cookie, response)
    return response


def _state(request: Request) -> AppState:
    state: AppState = request.app.state.ratingdb
    return state


# Password checks at once (argon2 at 64 MiB and four lanes each): the others wait their turn.
HASHING_AT_ONCE: Final = 1


def _hashing(request: Request) -> anyio.CapacityLimiter:
    """The app's hashing pool, made in its event loop at the first sign-in."""
    limiter: anyio.CapacityLimiter | None = getattr(request.app.state, "hashing", None)
    if limiter is None:
        limiter = request.app.state.hashing = anyio.CapacityLimiter(HASHING_AT_ONCE)
    return limiter


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@contextmanager
def signed_in(
    request: Request,
    state: AppState,
    *,
    dry_run: bool = False,
    officer: bool = False,
    enrolling: bool = False,
) -> Iterator[tuple[Session, WebUser]]:
    """One write transaction and the signed-in user, or SignInRequired; changes are audited as theirs.
    With `dry_run` the transaction is always rolled back and its ID counters put back (Database.dry_run):
    for the checks of a file and the dry-run close, which show exactly what the real run will do. With
    `officer` only officers and admins go on (the corrections and the register). An account the site
    requires a second factor of (serve --require-2fa) goes to its enrolment first (EnrolmentRequired), on
    every page but the enrolment's own (`enrolling`)."""
    with state.database.dry_run() if dry_run else state.database.write() as session:
        user = users.session_user(session, request.cookies.get(COOKIE))
        if user is None:
            raise SignInRequired
        if not enrolling and second_factor.required(user, state.settings.require_2fa):
            raise EnrolmentRequired
        if officer:
            subs.require_officer(user)
        session.info["actor"] = f"web:{user.username}"
        yield session, user
    if session.info.get("notices_queued") and not dry_run:
        state.wake_sender()  # committed: the notices the change queued go out now (ratingdb.web.sending)


async def in_thread(request: Request, work: Callable[[ReviewForm], Response]) -> Response:
    """`work` with the review form (ReviewForm), run in the thread pool as the sync routes are: the form is
    read here, asynchronously, since a sync route cannot await it."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(work, await _review_form(request))


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303, headers=NO_STORE)


# -- signing in and out -----------------------------------------------------------------------------------


@router.get("/login")
def login_page(request: Request) -> HTMLResponse:
    return render(request, "login.html", None)


@router.post("/login")
async def login(
    request: Request,
    state: State,
    username: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    """The sign-in in its three steps (services.users): a short transaction that reads, the password's
    argon2 check in the hashing pool outside any transaction, a short transaction that records. The pool
    runs HASHING_AT_ONCE checks at a time, each followed by a rest as long as it, and the others wait in
    the event loop: 16 checks at once took 64 MiB each and the processor from the public pages (issue 54,
    M3)."""
    address = _address(request)

    def begin() -> users.Attempt:
        with state.database.write() as session:
            return users.begin_log_in(session, username, address)

    def finish(matched: bool) -> users.NewSession | None:
        with state.database.write() as session:
            return users.finish_log_in(session, attempt, matched)

    attempt = await run_in_threadpool(begin)
    matched = False
    if attempt.stored_hash is not None:
        async with _hashing(request):
            began = time.perf_counter()
            matched = await anyio.to_thread.run_sync(users.password_matches, attempt, password)
            # The pool rests as long as the check took: sign-ins hash at most half of the time, so that a
            # crowd of them leaves the processor to the public pages the other half (argon2 runs four
            # lanes: on two cores one check alone took the public pages from 2.5 to 1.0 a second).
            await anyio.sleep(time.perf_counter() - began)
    started = await run_in_threadpool(finish, matched)
    if started is None:
        return render(
            request, "login.html", None, status=400, error=f"Error: {users.LOGIN_REFUSED}", username=username
        )
    # An account with a second factor gives its code next (ratingdb.web.second_factor).
    return with_session(_back("/login/code" if started.awaiting_code else "/desk"), state, started)


def with_session(response: Response, state: AppState, started: users.NewSession) -> Response:
    """`response` setting the cookie of the session `started`."""
    response.set_cookie(
        COOKIE,
        started.token,
        max_age=int(users.SESSION_LIFETIME.total_seconds()),
        httponly=True,
        secure=state.settings.secure_cookies,
        samesite="strict",
        path="/",
    )
    return response


@router.post("/logout")
def logout(request: Request, state: State) -> Response:
    with state.database.write() as session:
        users.log_out(session, request.cookies.get(COOKIE))
    response = _back("/login")
    response.delete_cookie(
        COOKIE, path="/", secure=state.settings.secure_cookies, httponly=True, samesite="strict"
    )
    return response


@router.get("/desk")
def desk_home(request: Request, state: State) -> Response:
    with signed_in(request, state) as (_session, user):
        return _back("/desk/queue" if subs.is_officer(user) else "/desk/submissions")


# -- organisers ---------------------------------------------------------------------------------------------


def _types(state: AppState) -> tuple[str, ...]:
    return state.settings.rating_types


@router.get("/desk/submissions")
def my_submissions(request: Request, state: State) -> HTMLResponse:
    with signed_in(request, state) as (session, user):
        mine = [(s, subs.status_of(session, s)) for s in subs.submissions_of(session, user)]
        return render(request, "submissions.html", user, submissions=mine, types=_types(state))


@dataclass(frozen=True)
class SubmissionForm:
    """The form that sends a file (a new submission, or one replacing an organiser's own)."""

    file: UploadFile
    rating_type: str
    note: str


def _sent(
    file: Annotated[UploadFile, File()],
    rating_type: Annotated[str, Form(max_length=8)] = "standard",
    note: Annotated[str, Form(max_length=2000)] = "",
) -> SubmissionForm:
    return SubmissionForm(file, rating_type, note)


Sent = Annotated[SubmissionForm, Depends(_sent)]


def _upload(request: Request, state: AppState, form: SubmissionForm, replaces: int | None) -> HTMLResponse:
    content = form.file.file.read(state.settings.max_upload_bytes + 1)
    name = form.file.filename or "upload.trf"
    rating_type, note = form.rating_type, form.note
    limits = state.settings.upload_limits
    check = refused = None
    if 0 < len(content) <= state.settings.max_upload_bytes:  # else submit refuses it, unchecked
        with signed_in(request, state, dry_run=True) as (session, user):
            try:  # a file refused by its kind, the rate or the quota is not checked (issue 54)
                subs.admit(session, user, content, limits)
            except subs.UploadRefused as exc:
                refused = exc
            else:
                check = subs.check_file(session, content, name, rating_type)
    with signed_in(request, state) as (session, user):
        try:
            if refused is not None:
                raise refused
            with session.begin_nested():
                sub, check = subs.submit(
                    session,
                    user,
                    content,
                    name,
                    rating_type,
                    note,
                    replaces=replaces,
                    max_bytes=state.settings.max_upload_bytes,
                    check=check,
                    limits=limits,
                )
        except (subs.NotAllowed, subs.UnknownSubmission):
            raise
        except RatingDbError as exc:
            mine = [(s, subs.status_of(session, s)) for s in subs.submissions_of(session, user)]
            return render(
                request, "submissions.html", user, status=400, error=_worded(request, exc),
                submissions=mine, types=_types(state),
            )  # fmt: skip
        return render(request, "submission.html", user, sub=sub, status_text=sub.status, check=check)


def _worded(request: Request, exc: Exception) -> str:
    """The refusal's line for the page, in the page's language where the refusal carries its catalogue
    message (i18n.translatable)."""
    found = getattr(exc, "page_message", None)
    if found is None:
        return f"Error: {exc}"
    message, values = found
    lang = Language(language(request))
    return lang.gettext(N_("Error: %(message)s")) % {"message": lang.gettext(message) % values}


@router.post("/desk/submissions")
def upload(request: Request, state: State, form: Sent) -> HTMLResponse:
    return _upload(request, state, form, None)


@router.get("/desk/submissions/{submission_id}")
def submission_page(request: Request, state: State, submission_id: int) -> HTMLResponse:
    with signed_in(request, state) as (session, user):
        sub = subs.submission_for(session, user, submission_id)
        # The check made when the file came (issue 54: each view ran it again, up to a minute a view)
        check = subs.stored_check(sub) if sub.status in subs.OPEN else None
        return render(
            request, "submission.html", user, sub=sub, status_text=subs.status_of(session, sub), check=check,
            types=_types(state),
        )  # fmt: skip


@router.get("/desk/submissions/{submission_id}/file")
def submission_file(request: Request, state: State, submission_id: int) -> Response:
    """The file as the organiser sent it (its bytes as stored): for the organiser and the officers."""
    from urllib.parse import quote

    with signed_in(request, state, dry_run=True) as (session, user):
        sub = subs.submission_for(session, user, submission_id)
        content, name = sub.content, sub.file_name
    plain = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in name) or "upload.trf"
    disposition = f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe='')}"
    return Response(
        content,
        media_type="application/octet-stream",
        headers={**NO_STORE, "content-disposition": disposition, "x-content-type-options": "nosniff"},
    )


# The answer of a confirmation page's button (confirm.html): without it, an action that withdraws or ends
# something (reopen, disable, withdraw) is first run in a dry run and its confirmation page shown. Plain
# forms, no script (the site's CSP allows none): the page's button posts the same form with confirm=yes.
CONFIRMED: Final = "yes"
Confirm = Annotated[str, Form(max_length=3)]


def _confirm_page(
    request: Request, user: WebUser, what: str, action: str, back: str, fields: dict[str, str], **values: Any
) -> HTMLResponse:
    """The page that asks before `what` ("reopen", "disable", "withdraw"): what it will do (`values`, from
    the action run in a dry run, so a refusal comes now and nothing is asked in vain), a button that posts
    the same form (`fields`) to `action` with confirm=yes, and a link `back` that changes nothing."""
    return render(request, "confirm.html", user, what=what, action=action, back=back, fields=fields, **values)


@router.post("/desk/submissions/{submission_id}/withdraw")
def withdraw(request: Request, state: State, submission_id: int, confirm: Confirm = "") -> Response:
    """Withdraw the organiser's own submission, once they confirm it (_confirm_page)."""
    if confirm != CONFIRMED:
        with signed_in(request, state, dry_run=True) as (session, user):
            sub = subs.withdraw(session, user, submission_id)
            return _confirm_page(
                request, user, "withdraw", f"/desk/submissions/{submission_id}/withdraw",
                f"/desk/submissions/{submission_id}", {}, sub=sub,
            )  # fmt: skip
    with signed_in(request, state) as (session, user):
        subs.withdraw(session, user, submission_id)
    return _back("/desk/submissions")


@router.post("/desk/submissions/{submission_id}/replace")
def replace(request: Request, state: State, submission_id: int, form: Sent) -> HTMLResponse:
    return _upload(request, state, form, submission_id)


# -- the officer's queue ------------------------------------------------------------------------------------


@router.get("/desk/queue")
def queue_page(request: Request, state: State, status: str = "submitted") -> HTMLResponse:
    """`ratingdb submission list [--status S]`: the waiting submissions unless another status is chosen
    (`all`: every one, the waiting first), each with its stored check's outcome and whether it is out of
    date."""
    with signed_in(request, state) as (session, user):
        shown = None if status == "all" else status
        rows = subs.queue_rows(session, user, shown)
        names = {u.id: u.username for u in users.list_users(session)}
        return render(
            request, "queue.html", user, rows=rows, names=names, types=_types(state), chosen=status,
            counts=subs.queue_counts(session, user),
        )  # fmt: skip


Chosen = dict[int, tuple[str, str]]


async def _choices(request: Request) -> tuple[Chosen, str | None]:
    """The matching choices of a form (the review, replace-event): choice_RANK (match, new, accept-name,
    drop) and id_RANK, and id_field (fide or national: import-trf's --id-field; "" or absent: fide)."""
    form = await request.form()
    chosen: Chosen = {}
    for key, value in form.multi_items():
        if key.startswith("choice_") and key[7:].isdigit() and isinstance(value, str) and value:
            rank = int(key[7:])
            ident = form.get(f"id_{rank}")
            chosen[rank] = (value, ident if isinstance(ident, str) else "")
    id_field = form.get("id_field")
    return chosen, id_field if isinstance(id_field, str) and id_field else None


# The review's controls for the choices about the file as a whole (import-trf's options of those names).
SETTINGS: Final = (
    "type", "type_override", "official", "closing_days", "period", "distinct_event", "section",
    "federation_column",
)  # fmt: skip


@dataclass(frozen=True)
class ReviewForm:
    """The review page's form: the lines' choices, the ID column and the choices about the whole file, as
    sent (`settings`, shown again in the form) and as the service takes them (`made`, or the refusal of a
    malformed one in `refused`)."""

    chosen: Chosen
    id_field: str | None
    settings: dict[str, str]

    def made(self) -> Any:
        """The ImportChoices of import-trf these controls make (ConfigError for a malformed one)."""
        return subs.import_choices(self.chosen, None, self.id_field, _file_settings(self.settings))


def _file_settings(settings: dict[str, str]) -> Any:
    """The choices about the whole file the controls `settings` make (subs.file_settings: import-trf's
    --type, --type-override, --official, --closing-days, --period, --distinct-event, --section and
    --federation-column); an empty control is a choice not made. ConfigError for a malformed one."""
    from ratingdb.errors import ConfigError

    days = settings.get("closing_days", "").strip()
    if days and not days.isdigit():
        raise ConfigError(f"closing days '{days}' is not a number of days")
    on = {key: settings.get(key) == "yes" or None for key in ("type_override", "official")}
    return subs.file_settings(
        rating_type=settings.get("type") or None,
        type_override=on["type_override"],
        official=on["official"],
        closing_days=int(days) if days else None,
        period=settings.get("period") or None,
        distinct=settings.get("distinct_event") == "yes" or None,
        section=settings.get("section") or None,
        federation_column=settings.get("federation_column") or None,
    )


async def _review_form(request: Request) -> ReviewForm:
    form = await request.form()
    chosen, id_field = await _choices(request)
    settings = {key: value[:200] for key in SETTINGS if isinstance(value := form.get(key), str) and value}
    return ReviewForm(chosen, id_field, settings)


def _review(
    request: Request, state: AppState, submission_id: int, sent: ReviewForm, *, again: bool = True
) -> HTMLResponse:
    """The review page; with `again` ("Check again") the file is checked again in a dry run, and a check
    of the file as it was sent (no choice made) is then kept as its check (subs.keep_check): the queue's
    check column and the organiser's page say what it says now."""
    with signed_in(request, state, dry_run=again) as (session, user):
        sub = subs.for_review(session, user, submission_id)
        check = None
        made = sent.made()
        choices_text = subs.choices_text(made, sub.rating_type)
        if sub.status == "submitted":
            # The stored check, run again only by "Check again" (`again`): a view runs nothing.
            check = subs.recheck(session, user, submission_id, made) if again else subs.stored_check(sub)
        organiser = session.get(WebUser, sub.organiser_id)
        page = render(
            request, "review.html", user, sub=sub, status_text=subs.status_of(session, sub), check=check,
            chosen=sent.chosen, id_field=sent.id_field or "fide", settings=sent.settings,
            organiser=organiser.username if organiser else "?", types=_types(state),
            choices_text=choices_text,
            outdated=check is not None and subs.is_outdated(check, data_version(session)),
            corrects=subs.corrected_events(session, user, submission_id),
        )  # fmt: skip
    if again and check is not None and not choices_text:
        with signed_in(request, state, officer=True) as (session, user):
            subs.keep_check(session, user, submission_id, check)
    return page


@router.get("/desk/queue/{submission_id}")
def review_page(request: Request, state: State, submission_id: int) -> HTMLResponse:
    return _review(request, state, submission_id, ReviewForm({}, None, {}), again=False)


@router.post("/desk/queue/{submission_id}/check")
async def review_check(request: Request, state: State, submission_id: int) -> Response:
    return await in_thread(request, lambda sent: _review(request, state, submission_id, sent))


@router.post("/desk/queue/{submission_id}/accept")
async def review_accept(request: Request, state: State, submission_id: int) -> Response:
    def accept(sent: ReviewForm) -> Response:
        with signed_in(request, state) as (session, user):
            subs.accept(session, user, submission_id, sent.made())
        return _back("/desk/queue")

    return await in_thread(request, accept)


@router.post("/desk/queue/{submission_id}/decide")
def review_decide(
    request: Request,
    state: State,
    submission_id: int,
    decision: Annotated[str, Form(max_length=20)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    with signed_in(request, state) as (session, user):
        subs.decide(session, user, submission_id, decision, reason)
    return _back("/desk/queue")


# -- the period page -----------------------------------------------------------------------------------


def _period(state: AppState, rating_type: str, period: str) -> tuple[str, Period]:
    from ratingdb.errors import ConfigError

    if rating_type not in state.settings.rating_types:
        raise ConfigError(f"'{rating_type}' is not a rating type of this site")
    try:
        return rating_type, Period.parse(period)
    except ValueError:
        raise ConfigError(
            f"'{period}' is not a rating period: write it as YYYY-MM, for example 2025-10"
        ) from None


def _period_page(
    request: Request, state: AppState, rating_type: str, period: str, dry_run: bool
) -> HTMLResponse:
    kind, chosen = _period(state, rating_type, period)
    with signed_in(request, state, dry_run=dry_run) as (session, user):
        view = subs.period_view(session, user, chosen, kind, dry_run=dry_run)
        return render(request, "period.html", user, view=view)


@router.get("/desk/periods/{rating_type}/{period}")
def period_page(request: Request, state: State, rating_type: str, period: str) -> HTMLResponse:
    return _period_page(request, state, rating_type, period, dry_run=False)


@router.post("/desk/periods/{rating_type}/{period}/dry-run")
def period_dry_run(request: Request, state: State, rating_type: str, period: str) -> HTMLResponse:
    return _period_page(request, state, rating_type, period, dry_run=True)


@router.post("/desk/periods/{rating_type}/{period}/close")
def period_close(
    request: Request,
    state: State,
    rating_type: str,
    period: str,
    through: Annotated[str, Form(max_length=20)] = "",
) -> Response:
    """`ratingdb close-period PERIOD --type T [--through LAST]`: the page of the last period closed."""
    kind, chosen = _period(state, rating_type, period)
    last = _period(state, kind, through.strip())[1] if through.strip() else None
    with signed_in(request, state) as (session, user):
        subs.require_officer(user)
    closed = subs.close(state.database, user, chosen, kind, last)  # each its own transaction, copy first
    return _back(f"/desk/periods/{kind}/{closed[-1].summary.period if closed else chosen}")


@router.post("/desk/periods/{rating_type}/{period}/reopen")
def period_reopen(
    request: Request,
    state: State,
    rating_type: str,
    period: str,
    reason: Annotated[str, Form(max_length=2000)] = "",
    include_imported: Annotated[str, Form(max_length=3)] = "",
    confirm: Confirm = "",
) -> Response:
    """`ratingdb reopen PERIOD --type T --reason TEXT [--include-imported]`, once the officer confirms it
    on a page that lists the lists it withdraws (its dry run, as `ratingdb reopen … --dry-run` prints)."""
    kind, chosen = _period(state, rating_type, period)
    page = f"/desk/periods/{kind}/{chosen}"
    also = include_imported == "yes"
    if confirm != CONFIRMED:
        with signed_in(request, state, dry_run=True) as (session, user):
            withdrawn = subs.reopen(session, user, chosen, kind, reason, include_imported=also)
            return _confirm_page(
                request, user, "reopen", f"{page}/reopen", page,
                {"reason": reason, "include_imported": include_imported}, withdrawn=withdrawn,
                rating_type=kind, period=str(chosen),
            )  # fmt: skip
    with signed_in(request, state) as (session, user):
        subs.reopen(session, user, chosen, kind, reason, include_imported=also)
    return _back(page)


@router.post("/desk/events/{event_id}/review")
def event_review(
    request: Request,
    state: State,
    event_id: int,
    decision: Annotated[str, Form(max_length=8)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    """`ratingdb event review ID --decision rate|exclude --reason TEXT`."""
    with signed_in(request, state) as (session, user):
        done = subs.review(session, user, event_id, decision, reason)
        event = session.get(Event, done.event_id)
        back = f"/desk/periods/{event.rating_type}/{event.period}" if event is not None else "/desk/periods"
    return _back(back)


# -- corrections: replace-event ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplacementForm:
    """The replace page's form: the corrected file if one is uploaded now, else the token of the one kept
    since its check (subs.keep_pending: on the server, not in the page), the reason, the matching choices
    and the switches (subs.SWITCHES: "on", "off" or "" for as the event was imported)."""

    upload: bytes | None
    file_name: str
    pending: str
    reason: str
    chosen: Chosen
    id_field: str | None
    switches: dict[str, bool | None]
    replacing: bool  # the Replace button (with no new file chosen), else Check
    # The type, late period, section, closing days and federation column given (REPLACE_SETTINGS; an
    # empty control: as the event was imported), as sent.
    settings: dict[str, str] = field(default_factory=dict)

    def made(self) -> Any:
        """The settings as the service takes them (ConfigError for a malformed one)."""
        return _file_settings(self.settings)


# The replace page's settings: replace-event's --type, --period, --section, --closing-days and
# --federation-column (the switches are SWITCHES).
REPLACE_SETTINGS: Final = ("type", "period", "section", "closing_days", "federation_column")


async def _replacement_form(request: Request) -> ReplacementForm:
    from starlette.datastructures import UploadFile as Upload

    form = await request.form()
    chosen, id_field = await _choices(request)
    upload, pending, reason = form.get("file"), form.get("pending"), form.get("reason")
    content, name = None, "corrected.trf"
    if isinstance(upload, Upload) and upload.filename:
        # One byte more than is taken, so that a larger file is refused rather than cut short.
        content, name = await upload.read(_state(request).settings.max_upload_bytes + 1), upload.filename
    return ReplacementForm(
        content, name, pending if isinstance(pending, str) else "",
        reason.strip() if isinstance(reason, str) else "", chosen, id_field,
        {key: _switch(form.get(key)) for key in subs.SWITCHES},
        form.get("action") == "replace" and content is None,
        {key: value[:200] for key in REPLACE_SETTINGS if isinstance(value := form.get(key), str) and value},
    )  # fmt: skip


def _switch(value: object) -> bool | None:
    """A switch of the replace page: "on" (--official), "off" (--no-official), else as imported."""
    return {"on": True, "off": False}.get(value if isinstance(value, str) else "")


def _event_of(session: Session, event_id: int) -> Any:
    from ratingdb.errors import UnknownEvent
    from ratingdb.schema.models import Event

    found = session.get(Event, event_id)
    if found is None:
        raise UnknownEvent(f"there is no event {event_id} — see the period's events")
    return found


def _replace_page(
    request: Request, session: Session, user: WebUser, event_id: int, sent: ReplacementForm | None = None,
    file: tuple[str, bytes] = ("", b""),
) -> HTMLResponse:  # fmt: skip
    """The replace page: the form, with the check of the file sent (its name and bytes) when there is one."""
    event = _event_of(session, event_id)
    values: dict[str, Any] = {"found": None, "chosen": {}, "id_field": "", "switches": {}, "settings": {}}
    if sent is not None:
        found = subs.check_replacement(
            session, user, event_id, file[1], file[0], sent.reason, sent.chosen, sent.id_field, sent.switches,
            sent.made(),
        )  # fmt: skip
        values = {
            "found": found, "check": found, "chosen": sent.chosen, "id_field": sent.id_field or "",
            "switches": sent.switches, "reason": sent.reason, "file_name": file[0], "pending": sent.pending,
            "settings": sent.settings,
            "line_players": subs.registered_of_lines(
                session, file[1], file[0], subs.stored_lines(event),
                sent.id_field or subs.stored_id_field(event),
            ),
        }  # fmt: skip
    return render(
        request, "replace.html", user, event=event, stored=subs.stored_switches(event),
        stored_lines=subs.stored_lines(event), stored_settings=subs.stored_settings(event),
        types=_types(_state(request)),
        switch_options=subs.SWITCHES, id_field_stored=subs.stored_id_field(event), **values,
    )  # fmt: skip


@router.get("/desk/events/{event_id}/replace")
def replace_page(request: Request, state: State, event_id: int) -> HTMLResponse:
    with signed_in(request, state, dry_run=True, officer=True) as (session, user):
        return _replace_page(request, session, user, event_id)


@router.post("/desk/events/{event_id}/replace")
async def replace_event(request: Request, state: State, event_id: int) -> Response:
    """`ratingdb replace-event EVENT FILE --reason TEXT` with the choices: *Check* keeps the file chosen on
    the server for this session (subs.keep_pending) and runs the replacement as --dry-run (in a dry-run
    transaction) to show what would change; *Replace* does it with the file kept. A new file chosen is
    always checked first, whichever button sent it."""
    from dataclasses import replace

    from starlette.concurrency import run_in_threadpool

    form = await request.form()
    try:
        sent = await _replacement_form(request)
    finally:
        await form.close()  # the upload's temporary file (no File() parameter closes it here)
    browser = request.cookies.get(COOKIE)

    def run() -> Response:
        checked = sent
        if sent.upload is not None:  # kept first, in a transaction of its own: the check only reads it
            with signed_in(request, state, officer=True) as (session, user):
                token = subs.keep_pending(
                    session, user, browser, event_id, sent.upload, sent.file_name,
                    state.settings.max_upload_bytes,
                )  # fmt: skip
            checked = replace(sent, pending=token)
        if sent.replacing:
            with signed_in(request, state, officer=True) as (session, user):
                name, content = subs.pending_file(session, user, browser, sent.pending, event_id)
                done = subs.replace(
                    session, user, event_id, content, name, sent.reason, sent.chosen, sent.id_field,
                    sent.switches, sent.made(),
                )  # fmt: skip
                subs.drop_pending(session, browser)
                event = _event_of(session, done.new_event_id)
                where = f"/desk/periods/{event.rating_type}/{event.period}"
            return _back(where)
        with signed_in(request, state, dry_run=True, officer=True) as (session, user):
            if not checked.pending:
                from ratingdb.errors import ConfigError

                raise ConfigError(f"no file was chosen — choose {subs.CORRECTED} and check it")
            file = subs.pending_file(session, user, browser, checked.pending, event_id)
            return _replace_page(request, session, user, event_id, checked, file)

    return await run_in_threadpool(run)


# -- replacing an event with a submission: `ratingdb submission replace ID EVENT` ---------------------------


def _submission_replace_page(
    request: Request, session: Session, user: WebUser, submission_id: int, event_id: int,
    sent: ReplacementForm | None = None,
) -> HTMLResponse:  # fmt: skip
    """The replace page for a submission's file: checked at once (in the dry-run transaction the caller
    opened), with the choices the event was imported with, or with those sent."""
    sub = subs.for_review(session, user, submission_id)
    event = _event_of(session, event_id)
    chosen, id_field, switches = (sent.chosen, sent.id_field, sent.switches) if sent else ({}, None, {})
    made = subs.replacement_choices(chosen, id_field, switches, sent.made() if sent else None)
    found = subs.check_replace_with(session, user, submission_id, event_id, made)
    organiser = session.get(WebUser, sub.organiser_id)
    stored_lines = subs.stored_lines(event)
    registered = subs.registered_of_lines(
        session, sub.content, sub.file_name, stored_lines, id_field or subs.stored_id_field(event)
    )
    return render(
        request, "replace.html", user, event=event, stored=subs.stored_switches(event),
        stored_lines=stored_lines, line_players=registered, switch_options=subs.SWITCHES,
        settings=sent.settings if sent else {}, stored_settings=subs.stored_settings(event),
        types=_types(_state(request)),
        id_field_stored=subs.stored_id_field(event), found=found, check=found, chosen=chosen,
        id_field=id_field or "", switches=switches, reason=sent.reason if sent else "", submission=sub,
        organiser=organiser.username if organiser else "?",
    )  # fmt: skip


@router.get("/desk/queue/{submission_id}/replace")
def submission_replace_choose(
    request: Request, state: State, submission_id: int, event: str = ""
) -> Response:
    """The review page's "replace another event" field: the replace page of the event named."""
    from ratingdb.errors import ConfigError

    if not event.strip().isdigit():
        raise ConfigError(f"'{event.strip()[:20]}' is not an event number — see the period's events")
    return _back(f"/desk/queue/{submission_id}/replace/{int(event)}")


@router.get("/desk/queue/{submission_id}/replace/{event_id}")
def submission_replace_page(
    request: Request, state: State, submission_id: int, event_id: int
) -> HTMLResponse:
    with signed_in(request, state, dry_run=True, officer=True) as (session, user):
        return _submission_replace_page(request, session, user, submission_id, event_id)


@router.post("/desk/queue/{submission_id}/replace/{event_id}")
async def submission_replace(request: Request, state: State, submission_id: int, event_id: int) -> Response:
    """`ratingdb submission replace ID EVENT --reason TEXT` with the page's choices: *Check* runs it as
    --dry-run and shows what would change; *Replace* does it and goes to the event's period."""
    from starlette.concurrency import run_in_threadpool

    form = await request.form()
    try:
        sent = await _replacement_form(request)
    finally:
        await form.close()

    def run() -> Response:
        if sent.replacing:
            with signed_in(request, state, officer=True) as (session, user):
                made = subs.replacement_choices(sent.chosen, sent.id_field, sent.switches, sent.made())
                done = subs.replace_with(session, user, submission_id, event_id, made, sent.reason)
                event = _event_of(session, done.new_event_id)
                where = f"/desk/periods/{event.rating_type}/{event.period}"
            return _back(where)
        with signed_in(request, state, dry_run=True, officer=True) as (session, user):
            return _submission_replace_page(request, session, user, submission_id, event_id, sent)

    return await run_in_threadpool(run)


# -- the player register: find, edit (and aliases), merge ---------------------------------------------------


@router.get("/desk/players")
def players_page(request: Request, state: State, q: str = "") -> HTMLResponse:
    """`ratingdb player find TEXT`."""
    from ratingdb.services.players import search_players

    with signed_in(request, state, dry_run=True, officer=True) as (session, user):
        found = search_players(session, q[:200], limit=50) if q.strip() else []
        return render(request, "desk_players.html", user, q=q, found=found)


def _player_view(session: Session, ident: str) -> dict[str, Any]:
    from ratingdb.services.players import alias_history, club_of, find_by_id, player_ident, versions

    player = find_by_id(session, ident)
    return {
        "player": player,
        "club": club_of(session, player.id),
        "ident": player_ident(session, player),
        "versions": versions(session, player.id),
        "aliases": alias_history(session, player.id),
    }


@router.get("/desk/players/{ident}")
def player_page(request: Request, state: State, ident: str) -> HTMLResponse:
    """`ratingdb player show ID`'s details, with the forms of `player edit` and `player merge`."""
    with signed_in(request, state, dry_run=True, officer=True) as (session, user):
        return render(request, "desk_player.html", user, **_player_view(session, ident))


def _number(value: str, option: str) -> int | None:
    from ratingdb.errors import ConfigError

    if not value.strip():
        return None
    if not value.strip().isdigit():
        raise ConfigError(f"{option} '{value}' is not a number")
    return int(value.strip())


@router.post("/desk/players/{ident}/edit")
def player_edit(
    request: Request,
    state: State,
    ident: str,
    reason: Annotated[str, Form(max_length=2000)] = "",
    name: Annotated[str, Form(max_length=200)] = "",
    federation: Annotated[str, Form(max_length=10)] = "",
    sex: Annotated[str, Form(max_length=2)] = "",
    title: Annotated[str, Form(max_length=10)] = "",
    birth_year: Annotated[str, Form(max_length=10)] = "",
    fide_id: Annotated[str, Form(max_length=20)] = "",
    national_id: Annotated[str, Form(max_length=40)] = "",
    deceased: Annotated[str, Form(max_length=10)] = "",
    add_alias: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """`ratingdb player edit ID --reason TEXT` with the fields filled in (an empty field: not given;
    title "none" clears it) and --add-alias."""
    from ratingdb.services.players import player_ident
    from ratingdb.services.register import check_alias, check_details, correct_player

    with signed_in(request, state, officer=True) as (session, user):
        given = check_details(
            name or None, federation or None, sex or None,
            "" if title == "none" else (title or None),
            _number(birth_year, "--birth-year"), _number(fide_id, "--fide-id"), national_id or None,
        )  # fmt: skip
        if deceased in ("yes", "no"):
            given["deceased"] = deceased == "yes"
        aliases = [check_alias(add_alias)] if add_alias.strip() else []
        done = correct_player(session, ident, given, aliases, reason)
        from ratingdb.schema.models import Player

        where = player_ident(session, session.get_one(Player, done.player_id))
    return _back(f"/desk/players/{where}")


@router.post("/desk/players/{ident}/merge")
def player_merge(
    request: Request,
    state: State,
    ident: str,
    duplicates: Annotated[str, Form(max_length=400)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    """`ratingdb player merge DUPLICATE... KEEP --reason TEXT`, this player kept: its page, with what each
    merge took from the duplicate (as the command's lines say)."""
    from ratingdb.services.register import merge_into

    with signed_in(request, state, officer=True) as (session, user):
        merged = merge_into(session, duplicates.replace(",", " ").split(), ident, reason)
        return render(request, "desk_player.html", user, merged=merged, **_player_view(session, ident))


@router.get("/desk/periods")
def periods_page(request: Request, state: State) -> HTMLResponse:
    with signed_in(request, state) as (session, user):
        found = subs.open_periods(session, user, state.settings.rating_types)
        return render(request, "periods.html", user, periods=found)


# -- admins: the accounts ------------------------------------------------------------------------------------


def _admin(user: WebUser) -> None:
    if user.role != "admin":
        raise subs.NotAllowed(f"the {user.role} role may not manage accounts — ask an admin")


@router.get("/desk/users")
def users_page(request: Request, state: State) -> HTMLResponse:
    with signed_in(request, state) as (session, user):
        _admin(user)
        accounts = users.list_users(session)
        waiting = {a.id for a in accounts if users.waits_until(a)}  # each wait ends by itself
        return render(request, "users.html", user, accounts=accounts, waiting=waiting)


@router.post("/desk/users")
def add_user(
    request: Request,
    state: State,
    username: Annotated[str, Form(max_length=64)] = "",
    role: Annotated[str, Form(max_length=12)] = "organiser",
    password: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    with signed_in(request, state) as (session, user):
        _admin(user)
        users.add_user(session, username, role, password, site_name=state.settings.title)
    return _back("/desk/users")


@router.post("/desk/users/{username}/{action}")
def change_user(
    request: Request,
    state: State,
    username: str,
    action: str,
    role: Annotated[str, Form(max_length=12)] = "",
    password: Annotated[str, Form(max_length=2000)] = "",
    confirm: Confirm = "",
) -> Response:
    """An admin's change to an account; disabling it is done once confirmed (_confirm_page)."""
    from ratingdb.errors import ConfigError

    if action == "disable" and confirm != CONFIRMED:
        with signed_in(request, state, dry_run=True) as (session, user):
            _admin(user)
            account = users.set_disabled(session, username, True)  # refused now if it would be refused
            return _confirm_page(
                request, user, "disable", f"/desk/users/{account.username}/disable", "/desk/users", {},
                account=account, yourself=account.id == user.id,
            )  # fmt: skip
    with signed_in(request, state) as (session, user):
        _admin(user)
        if action == "disable":
            users.set_disabled(session, username, True)
        elif action == "enable":
            users.set_disabled(session, username, False)
        elif action == "role":
            users.set_role(session, username, role)
        elif action == "password":
            users.reset_password(session, username, password, site_name=state.settings.title)
        elif action == "unlock":
            users.unlock(session, username)
        elif action == "2fa-reset":  # a lost device: `ratingdb user 2fa reset NAME`
            second_factor.reset(session, username)
        else:
            raise ConfigError(f"'{action}' is not something to do to an account")
    return _back("/desk/users")


# -- admins: the federation's numbering ---------------------------------------------------------------------


@router.get("/desk/federation")
def federation_page(request: Request, state: State) -> HTMLResponse:
    """`ratingdb federation show`, with the forms of `federation set` and `federation renumber`."""
    with signed_in(request, state, dry_run=True) as (session, user):
        _admin(user)
        return render(request, "federation.html", user, rule=federation.numbering(session))


@router.post("/desk/federation")
def federation_set(
    request: Request,
    state: State,
    reason: Annotated[str, Form(max_length=2000)] = "",
    national_ids: Annotated[str, Form(max_length=10)] = "",
    start: Annotated[str, Form(max_length=10)] = "",
    prefix: Annotated[str, Form(max_length=20)] = "",
    pattern: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """`ratingdb federation set` with every field as the form sends it (an empty pattern removes it)."""
    with signed_in(request, state) as (session, user):
        _admin(user)
        federation.set_numbering(
            session,
            mode=national_ids or None,
            start=_number(start, "--national-id-start"),
            prefix=prefix if national_ids == "prefix" else None,
            pattern=pattern,
            reason=reason,
        )
    return _back("/desk/federation")


@router.post("/desk/federation/renumber")
def federation_renumber(
    request: Request,
    state: State,
    low: Annotated[str, Form(max_length=10)] = "",
    high: Annotated[str, Form(max_length=10)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
    check: Annotated[str, Form(max_length=10)] = "",
) -> HTMLResponse:
    """`ratingdb federation renumber --numbers LOW-HIGH --reason TEXT` (with `check`: its --dry-run), the
    page then listing each player renumbered."""
    with signed_in(request, state, dry_run=bool(check)) as (session, user):
        _admin(user)
        done = federation.renumber(
            session,
            low=_number(low, "--numbers") or 0,
            high=_number(high, "--numbers") or 0,
            reason=reason,
        )
        return render(
            request, "federation.html", user, rule=federation.numbering(session), renumbered=done,
            checked=bool(check), low=low, high=high,
        )  # fmt: skip


@router.post("/desk/unlock-address")
def unlock_address(
    request: Request, state: State, address: Annotated[str, Form(max_length=64)] = ""
) -> Response:
    with signed_in(request, state) as (session, user):
        _admin(user)
        users.unlock(session, None, address.strip())
    return _back("/desk/users")
