"""API tokens that expire: a token older than GEC_API_TOKEN_HOURS is refused with 401.

DRF imports this module while its views module loads (DEFAULT_AUTHENTICATION_CLASSES), so
it must import no DRF view; the token endpoint is core/token_api.py."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from core.services import token_expires_at


class ExpiringTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, refused once the token has expired."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user, token = super().authenticate_credentials(key)
        if token_expires_at(token) <= timezone.now():
            raise AuthenticationFailed(
                "the API token expired; POST username and password to /api/auth/token/ "
                "for a new one"
            )
        return user, token
