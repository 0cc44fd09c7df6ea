"""POST /api/auth/token/: username + password -> {"token", "expires"}.

The password is checked through the login throttle like every other login
(core/login_throttle.py): the view hands Django's own request to `authenticate`, so a
lockout answers 429 through the throttle's middleware exactly as the login page does."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response

from core.login_throttle import USERNAME_MAX_LENGTH
from core.services import issue_api_token, token_expires_at


class TokenRequestSerializer(AuthTokenSerializer):
    # No longer than a username can be: the throttle then never records a longer one.
    username = serializers.CharField(
        label="Username", write_only=True, max_length=USERNAME_MAX_LENGTH
    )


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField(help_text='send it as "Authorization: Token <token>"')
    expires = serializers.DateTimeField(help_text="when the token stops working (401)")


class TokenLoginView(ObtainAuthToken):
    """The user's live token, or a new one when it has expired (GEC_API_TOKEN_HOURS)."""

    serializer_class = TokenRequestSerializer

    def get_serializer_context(self) -> dict[str, Any]:
        context: dict[str, Any] = super().get_serializer_context()
        # Django's request, not DRF's wrapper: the throttle marks a lockout on it, and its
        # middleware (which sees only Django's request) turns the answer into a 429.
        context["request"] = self.request._request
        return context

    @extend_schema(
        request=TokenRequestSerializer,
        responses={
            200: TokenResponseSerializer,
            400: OpenApiResponse(description="wrong username or password"),
            429: OpenApiResponse(description="logins paused: too many failed logins"),
        },
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = issue_api_token(user=serializer.validated_data["user"])
        return Response({"token": token.key, "expires": token_expires_at(token).isoformat()})
