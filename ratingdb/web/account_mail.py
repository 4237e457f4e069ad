"""The signed-in side's pages about email (issue 52): one's own address and notices, the admin's view of
the notices' queue and of every account's address, and the self-service password reset.

Each handler: one transaction, one service call (ratingdb.services.notices, ratingdb.services.password_reset),
a page; the same CSRF and field checks as every desk form (ratingdb.web.desk's dependencies). A request
that queued a notice wakes the background sender after its commit (ratingdb.web.sending); no request
sends mail itself. A reset's request gets the same answer whoever is named, and counts against the
address's sign-in limit.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ratingdb.i18n import N_, Language
from ratingdb.schema.models import NOTICE_CHOICES, WebUser
from ratingdb.services import notices, password_reset, users
from ratingdb.services.submissions import NotAllowed
from ratingdb.web import desk
from ratingdb.web.deps import State, language

router = APIRouter(
    include_in_schema=False, dependencies=[Depends(desk.fields_checked), Depends(desk.csrf_checked)]
)

CHOICE_WORDS: Final = {
    "at_once": N_("at once, one email per file"),
    "daily": N_("once a day, one email listing them"),
    "never": N_("never"),
}
KIND_WORDS: Final = {
    "accepted": N_("file accepted"),
    "changes_requested": N_("file sent back"),
    "rejected": N_("file rejected"),
    "waiting": N_("file waiting"),
    "digest": N_("daily digest"),
    "role": N_("role changed"),
    "password": N_("password changed"),
    "second_factor": N_("second factor changed"),
    "address": N_("address changed"),
    "reset": N_("password reset link"),
}
STATUS_WORDS: Final = {"waiting": N_("waiting"), "sent": N_("sent"), "failed": N_("failed")}
PASSWORDS_DIFFER: Final = N_("the two passwords differ — type the same new password twice")
RESET_ACTOR: Final = "web:password-reset"  # the audit log's actor of a reset: no one is signed in
LANGUAGE_NAMES: Final = {"en": "English", "de": "Deutsch", "fr": "Français"}


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303, headers=desk.NO_STORE)


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _words(request: Request) -> dict[str, Any]:
    lang = Language(language(request))
    return {
        "choice_word": lambda c: lang.gettext(CHOICE_WORDS[c]) if c in CHOICE_WORDS else c,
        "kind_word": lambda k: lang.gettext(KIND_WORDS[k]) if k in KIND_WORDS else k,
        "notice_status_word": lambda s: lang.gettext(STATUS_WORDS[s]) if s in STATUS_WORDS else s,
        "languages": LANGUAGE_NAMES,
        "choices": NOTICE_CHOICES,
    }


# -- one's own address ------------------------------------------------------------------------------------


@router.get("/desk/contact")
def contact_page(request: Request, state: State) -> HTMLResponse:
    with desk.signed_in(request, state) as (session, user):
        contact = notices.contact_of(session, user)
        return desk.render(
            request,
            "contact.html",
            user,
            contact=contact,
            sending=state.notices is not None,
            **_words(request),
        )


@router.post("/desk/contact")
def set_contact(
    request: Request,
    state: State,
    email: Annotated[str, Form(max_length=254)] = "",
    lang: Annotated[str, Form(max_length=2)] = "",
    files_waiting: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    with desk.signed_in(request, state) as (session, user):
        officer = user.role in ("officer", "admin")
        notices.set_contact(
            session,
            user,
            email,
            language=lang or language(request),
            files_waiting=(files_waiting or None) if officer and email.strip() else None,
        )
    return _back("/desk/contact")


# -- the admin's view --------------------------------------------------------------------------------------


@router.get("/desk/notices")
def notices_page(request: Request, state: State, status: str | None = None) -> HTMLResponse:
    with desk.signed_in(request, state) as (session, user):
        _require_admin(user)
        shown = notices.notices(session, status or None)
        accounts = [(a, notices.contact_of(session, a)) for a in users.list_users(session)]
        return desk.render(
            request,
            "notices.html",
            user,
            shown=shown,
            counts=notices.counts(session),
            accounts=accounts,
            sending=state.notices,
            **_words(request),
        )


def _require_admin(user: WebUser) -> None:
    if user.role != "admin":
        raise NotAllowed(f"the {user.role} role may not see the notices — ask an admin")


@router.post("/desk/notices/{notice_id}/send-again")
def send_again(request: Request, state: State, notice_id: int) -> Response:
    with desk.signed_in(request, state) as (session, user):
        _require_admin(user)
        notices.send_again(session, notice_id)
    state.wake_sender()
    return _back("/desk/notices")


@router.post("/desk/contacts/{username}")
def set_contact_of(
    request: Request,
    state: State,
    username: str,
    email: Annotated[str, Form(max_length=254)] = "",
    lang: Annotated[str, Form(max_length=2)] = "en",
    files_waiting: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    with desk.signed_in(request, state) as (session, user):
        _require_admin(user)
        account = users.find_user(session, username)
        officer = account.role in ("officer", "admin")
        notices.set_contact(
            session,
            account,
            email,
            language=lang,
            files_waiting=(files_waiting or None) if officer and email.strip() else None,
        )
    return _back("/desk/notices")


# -- a password reset ------------------------------------------------------------------------------------


@router.get("/password-reset")
def reset_ask_page(request: Request) -> HTMLResponse:
    return desk.render(request, "reset_ask.html", None)


@router.post("/password-reset")
def reset_ask(request: Request, state: State, who: Annotated[str, Form(max_length=254)] = "") -> HTMLResponse:
    with state.database.write() as session:
        session.info["actor"] = RESET_ACTOR
        password_reset.request_reset(session, who, _address(request))
        queued = bool(session.info.get("notices_queued"))
    if queued:
        state.wake_sender()
    # The same page whatever was found: no answer tells whether a name or address has an account.
    told = Language(language(request)).gettext(password_reset.REQUESTED)
    return desk.render(request, "reset_ask.html", None, told=told)


@router.get("/password-reset/{token}")
def reset_page(request: Request, state: State, token: str) -> HTMLResponse:
    with state.database.read() as session:
        valid = password_reset.reset_for(session, token) is not None
    if not valid:
        return _refused(request, password_reset.NOT_VALID)
    return desk.render(request, "reset_new.html", None, token=token)


@router.post("/password-reset/{token}")
def reset(
    request: Request,
    state: State,
    token: str,
    password: Annotated[str, Form(max_length=2000)] = "",
    again: Annotated[str, Form(max_length=2000)] = "",
) -> HTMLResponse:
    if password != again:
        lang = Language(language(request))
        return desk.render(
            request,
            "reset_new.html",
            None,
            status=400,
            token=token,
            error=lang.gettext("Error: %(message)s") % {"message": lang.gettext(PASSWORDS_DIFFER)},
        )
    with state.database.write() as session:
        session.info["actor"] = RESET_ACTOR
        done = password_reset.finish_reset(session, token, password, _address(request))
        queued = bool(session.info.get("notices_queued"))
    if queued:
        state.wake_sender()
    if done.refusal is not None:
        return _refused(request, done.refusal)
    response = desk.render(request, "reset_done.html", None)
    response.delete_cookie(desk.COOKIE, path="/")  # this browser's session of the account ended too
    return response


def _refused(request: Request, message: str) -> HTMLResponse:
    lang = Language(language(request))
    error = lang.gettext("Error: %(message)s") % {"message": lang.gettext(message)}
    return desk.render(request, "reset_ask.html", None, status=400, error=error)
