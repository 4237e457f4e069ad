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

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, FastAPI, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy.orm import Session

from ratingdb.errors import RatingDbError
from ratingdb.rating import Period
from ratingdb.schema.models import WebUser
from ratingdb.services import submissions as subs
from ratingdb.services import users
from ratingdb.web.deps import State
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


class CsrfRefused(Exception):
    """A POST without the CSRF token of the page it came from."""


async def csrf_refused(request: Request, exc: Exception) -> Response:
    body = _templates().get_template("desk_error.html").render(message=f"Error: {CSRF_FAILED}")
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


router = APIRouter(include_in_schema=False, dependencies=[Depends(csrf_checked)])


@cache
def _templates() -> Environment:
    return Environment(
        loader=PackageLoader("ratingdb.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(
    request: Request, name: str, user: WebUser | None, status: int = 200, **values: Any
) -> HTMLResponse:
    token, cookie = _csrf_token(request)
    body = (
        _templates()
        .get_template(name)
        .render(user=user, csrf=token, title=_state(request).settings.title, **values)
    )
    response = HTMLResponse(body, status_code=status, headers=NO_STORE)
    if cookie is not None:
        request.app.state.csrf.set_csrf_cookie(cookie, response)
    return response


def _state(request: Request) -> AppState:
    state: AppState = request.app.state.ratingdb
    return state


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@contextmanager
def signed_in(
    request: Request, state: AppState, *, dry_run: bool = False
) -> Iterator[tuple[Session, WebUser]]:
    """One write transaction and the signed-in user, or SignInRequired; changes are audited as theirs.
    With `dry_run` the transaction is always rolled back and its ID counters put back (Database.dry_run):
    for the checks of a file and the dry-run close, which show exactly what the real run will do."""
    with state.database.dry_run() if dry_run else state.database.write() as session:
        user = users.session_user(session, request.cookies.get(COOKIE))
        if user is None:
            raise SignInRequired
        session.info["actor"] = f"web:{user.username}"
        yield session, user


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303, headers=NO_STORE)


# -- signing in and out -----------------------------------------------------------------------------------


@router.get("/login")
def login_page(request: Request) -> HTMLResponse:
    return render(request, "login.html", None)


@router.post("/login")
def login(
    request: Request,
    state: State,
    username: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    with state.database.write() as session:
        started = users.log_in(session, username, password, _address(request))
    if started is None:
        return render(
            request, "login.html", None, status=400, error=f"Error: {users.LOGIN_REFUSED}", username=username
        )
    response = _back("/desk")
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


def _upload(
    request: Request, state: AppState, file: UploadFile, rating_type: str, note: str, replaces: int | None
) -> HTMLResponse:
    content = file.file.read(state.settings.max_upload_bytes + 1)
    name = file.filename or "upload.trf"
    check = None
    if 0 < len(content) <= state.settings.max_upload_bytes:  # else submit refuses it, unchecked
        with signed_in(request, state, dry_run=True) as (session, user):
            check = subs.check_file(session, content, name, rating_type)
    with signed_in(request, state) as (session, user):
        try:
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
                )
        except (subs.NotAllowed, subs.UnknownSubmission):
            raise
        except RatingDbError as exc:
            mine = [(s, subs.status_of(session, s)) for s in subs.submissions_of(session, user)]
            return render(
                request, "submissions.html", user, status=400, error=f"Error: {exc}", submissions=mine,
                types=_types(state),
            )  # fmt: skip
        return render(request, "submission.html", user, sub=sub, status_text=sub.status, check=check)


@router.post("/desk/submissions")
def upload(
    request: Request,
    state: State,
    file: Annotated[UploadFile, File()],
    rating_type: Annotated[str, Form(max_length=8)] = "standard",
    note: Annotated[str, Form(max_length=2000)] = "",
) -> HTMLResponse:
    return _upload(request, state, file, rating_type, note, None)


@router.get("/desk/submissions/{submission_id}")
def submission_page(request: Request, state: State, submission_id: int) -> HTMLResponse:
    with signed_in(request, state, dry_run=True) as (session, user):
        sub = subs.submission_for(session, user, submission_id)
        check = (
            subs.check_file(session, sub.content, sub.file_name, sub.rating_type)
            if sub.status in subs.OPEN
            else None
        )
        return render(
            request, "submission.html", user, sub=sub, status_text=subs.status_of(session, sub), check=check,
            types=_types(state),
        )  # fmt: skip


@router.post("/desk/submissions/{submission_id}/withdraw")
def withdraw(request: Request, state: State, submission_id: int) -> Response:
    with signed_in(request, state) as (session, user):
        subs.withdraw(session, user, submission_id)
    return _back("/desk/submissions")


@router.post("/desk/submissions/{submission_id}/replace")
def replace(
    request: Request,
    state: State,
    submission_id: int,
    file: Annotated[UploadFile, File()],
    rating_type: Annotated[str, Form(max_length=8)] = "standard",
    note: Annotated[str, Form(max_length=2000)] = "",
) -> HTMLResponse:
    return _upload(request, state, file, rating_type, note, submission_id)


# -- the officer's queue ------------------------------------------------------------------------------------


@router.get("/desk/queue")
def queue_page(request: Request, state: State) -> HTMLResponse:
    with signed_in(request, state) as (session, user):
        found = [(s, subs.status_of(session, s)) for s in subs.queue(session, user)]
        names = {u.id: u.username for u in users.list_users(session)}
        return render(request, "queue.html", user, submissions=found, names=names, types=_types(state))


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


def _review(
    request: Request, state: AppState, submission_id: int, chosen: Chosen, id_field: str | None
) -> HTMLResponse:
    with signed_in(request, state, dry_run=True) as (session, user):
        sub = subs.for_review(session, user, submission_id)
        check = None
        if sub.status == "submitted":
            check = subs.recheck(session, user, submission_id, chosen, id_field)
        organiser = session.get(WebUser, sub.organiser_id)
        return render(
            request, "review.html", user, sub=sub, status_text=subs.status_of(session, sub), check=check,
            chosen=chosen, id_field=id_field or "fide", organiser=organiser.username if organiser else "?",
            choices_text=subs.choices_text(chosen, id_field),
        )  # fmt: skip


@router.get("/desk/queue/{submission_id}")
def review_page(request: Request, state: State, submission_id: int) -> HTMLResponse:
    return _review(request, state, submission_id, {}, None)


@router.post("/desk/queue/{submission_id}/check")
async def review_check(request: Request, state: State, submission_id: int) -> HTMLResponse:
    chosen, id_field = await _choices(request)
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(_review, request, state, submission_id, chosen, id_field)


@router.post("/desk/queue/{submission_id}/accept")
async def review_accept(request: Request, state: State, submission_id: int) -> Response:
    chosen, id_field = await _choices(request)
    from starlette.concurrency import run_in_threadpool

    def accept() -> Response:
        with signed_in(request, state) as (session, user):
            subs.accept(session, user, submission_id, chosen, id_field)
        return _back("/desk/queue")

    return await run_in_threadpool(accept)


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


@router.get("/desk/periods/{rating_type}/{period}")
def period_page(request: Request, state: State, rating_type: str, period: str) -> HTMLResponse:
    kind, chosen = _period(state, rating_type, period)
    with signed_in(request, state) as (session, user):
        view = subs.period_view(session, user, chosen, kind, dry_run=False)
        return render(request, "period.html", user, view=view)


@router.post("/desk/periods/{rating_type}/{period}/dry-run")
def period_dry_run(request: Request, state: State, rating_type: str, period: str) -> HTMLResponse:
    kind, chosen = _period(state, rating_type, period)
    with signed_in(request, state, dry_run=True) as (session, user):
        view = subs.period_view(session, user, chosen, kind, dry_run=True)
        return render(request, "period.html", user, view=view)


@router.post("/desk/periods/{rating_type}/{period}/close")
def period_close(request: Request, state: State, rating_type: str, period: str) -> Response:
    kind, chosen = _period(state, rating_type, period)
    with signed_in(request, state) as (session, user):
        subs.close(session, user, chosen, kind)
    return _back(f"/desk/periods/{kind}/{chosen}")


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
        return render(request, "users.html", user, accounts=users.list_users(session))


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
        users.add_user(session, username, role, password)
    return _back("/desk/users")


@router.post("/desk/users/{username}/{action}")
def change_user(
    request: Request,
    state: State,
    username: str,
    action: str,
    role: Annotated[str, Form(max_length=12)] = "",
    password: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    from ratingdb.errors import ConfigError

    with signed_in(request, state) as (session, user):
        _admin(user)
        if action == "disable":
            users.set_disabled(session, username, True)
        elif action == "enable":
            users.set_disabled(session, username, False)
        elif action == "role":
            users.set_role(session, username, role)
        elif action == "password":
            users.reset_password(session, username, password)
        elif action == "unlock":
            users.unlock(session, username)
        else:
            raise ConfigError(f"'{action}' is not something to do to an account")
    return _back("/desk/users")


@router.post("/desk/unlock-address")
def unlock_address(
    request: Request, state: State, address: Annotated[str, Form(max_length=64)] = ""
) -> Response:
    with signed_in(request, state) as (session, user):
        _admin(user)
        users.unlock(session, None, address.strip())
    return _back("/desk/users")
