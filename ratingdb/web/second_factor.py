"""The second factor on the signed-in side: the sign-in's code page, the enrolment page (QR code, recovery
codes shown once) and new recovery codes. Every handler: one write transaction, one service call
(ratingdb.services.second_factor), a page.

The sign-in's first step is ratingdb.web.desk.login, which sends an account with a factor here; an
admin's reset of another account's factor is on the accounts page (ratingdb.web.desk.change_user).
The QR code is a PNG made by segno and given as a data: address (the CSP allows `img-src 'self' data:`
and no inline script), so nothing is loaded from elsewhere and the secret never leaves the page's answer,
which is not cached (NO_STORE). The router has the desk's dependencies: every POST carries its CSRF token
and no control character.
"""

from __future__ import annotations

from typing import Annotated, Final

import segno
from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ratingdb.i18n import N_, Language
from ratingdb.services import second_factor
from ratingdb.web.deps import State, language
from ratingdb.web.desk import COOKIE, NO_STORE, csrf_checked, fields_checked, render, signed_in, with_session
from ratingdb.web.state import AppState

router = APIRouter(include_in_schema=False, dependencies=[Depends(fields_checked), Depends(csrf_checked)])

QR_SCALE: Final = 5  # pixels a module: a 41-module code of a 160-bit secret is about 225 pixels


def qr_code(address: str) -> str:
    """The otpauth:// address as a PNG QR code in a data: address, for an <img> the CSP allows."""
    return str(segno.make(address, error="m").png_data_uri(scale=QR_SCALE, border=2))


def _back(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303, headers=NO_STORE)


def _refused(request: Request, message: str) -> str:
    lang = Language(language(request))
    return lang.gettext(N_("Error: %(message)s")) % {"message": lang.gettext(message)}


# -- the sign-in's second step ------------------------------------------------------------------------------


@router.get("/login/code")
def code_page(request: Request, state: State) -> Response:
    with state.database.write() as session:
        waiting = second_factor.awaiting_user(session, request.cookies.get(COOKIE))
    if waiting is None:
        return _back("/login")
    return render(request, "login_code.html", None)


@router.post("/login/code")
def code(request: Request, state: State, code: Annotated[str, Form(max_length=64)] = "") -> Response:
    """The code of the app or a recovery code: a whole session (a new cookie) for the right one; else the
    page again with one sentence, the failure counted (services.second_factor.complete_sign_in)."""
    token = request.cookies.get(COOKIE)
    address = request.client.host if request.client else "unknown"
    with state.database.write() as session:
        started = second_factor.complete_sign_in(session, token, code, address)
    if started is not None:
        return with_session(_back("/desk"), state, started)
    with state.database.write() as session:
        waiting = second_factor.awaiting_user(session, token)
    if waiting is None:  # the wait is over (CODE_WAIT): the password again
        return _back("/login")
    return render(
        request, "login_code.html", None, status=400, error=_refused(request, second_factor.CODE_REFUSED)
    )


# -- enrolment and recovery codes ---------------------------------------------------------------------------


def _factor_page(request: Request, state: AppState, status: int = 200, **values: object) -> HTMLResponse:
    with signed_in(request, state, enrolling=True) as (session, user):
        required = second_factor.required(user, state.settings.require_2fa)
        if second_factor.is_enrolled(user):
            left = second_factor.recovery_codes_left(session, user)
            return render(request, "second_factor.html", user, status=status, left=left, **values)
        enrolment = second_factor.begin_enrolment(session, user, state.settings.title)
        return render(
            request, "second_factor.html", user, status=status, enrolment=enrolment,
            qr=qr_code(enrolment.address), required=required, **values,
        )  # fmt: skip


@router.get("/desk/second-factor")
def factor_page(request: Request, state: State) -> HTMLResponse:
    return _factor_page(request, state)


@router.post("/desk/second-factor")
def enrol(request: Request, state: State, code: Annotated[str, Form(max_length=64)] = "") -> HTMLResponse:
    """Confirm the enrolment with the app's code: the recovery codes, shown this once."""
    with signed_in(request, state, enrolling=True) as (session, user):
        try:
            with session.begin_nested():
                codes = second_factor.confirm_enrolment(session, user, code)
        except second_factor.CodeRefused as exc:
            refusal = exc
        else:
            return render(request, "second_factor.html", user, codes=codes)
    return _factor_page(request, state, status=400, error=_refused(request, refusal.args[0]))


@router.post("/desk/second-factor/recovery-codes")
def new_codes(request: Request, state: State, code: Annotated[str, Form(max_length=64)] = "") -> HTMLResponse:
    """A new set of recovery codes, the old ones void, given a code of the app."""
    with signed_in(request, state, enrolling=True) as (session, user):
        try:
            with session.begin_nested():
                codes = second_factor.new_recovery_codes(session, user, code)
        except second_factor.CodeRefused as exc:
            refusal = exc
        else:
            return render(request, "second_factor.html", user, codes=codes)
    return _factor_page(request, state, status=400, error=_refused(request, refusal.args[0]))
