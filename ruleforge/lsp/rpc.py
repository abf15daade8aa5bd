"""Every request gets an answer: pygls's protocol, with the messages it would drop answered.

pygls turns each incoming JSON object into a typed message as it is decoded (`json.loads`'s
`object_hook`); when a request's parameters have the wrong shape (a string for a line, a line
of -1 or 2^40, a field missing) that raises inside the reading loop, which logs it and goes on:
the editor waits for an answer that never comes. Here the decoded message is taken whole, and a
request that cannot be read is answered at once: InvalidParams naming each wrong field
(`$.params.position.line`) for a known method (a number must be a JSON integer: cattrs alone
would read "1", 1.5 and true as lines), InvalidRequest for a message that is no JSON-RPC
request, and for any request after `shutdown` (pygls ignores those too). A request whose `id` is
itself malformed is answered with the id `null`, as JSON-RPC says. A body that is no JSON at all
(or nests deeper than Python's JSON reader goes) has no id to answer: pygls logs it.

The input is read through `ChunkedInput`, so that a `Content-Length` header cannot make the
server allocate what the header claims before the bytes arrive.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from lsprotocol.types import EXIT, ResponseError
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage

logger = logging.getLogger(__name__)

MOST_FIELDS = 5  # wrong fields named in one answer
HEADER_BYTES = 65_536  # the longest header line read at once
CHUNK_BYTES = 1 << 20  # a message's body is read this much at a time
LENGTH_DIGITS = 15  # a length of more digits is read as this many nines: no message is that long
_LENGTH = re.compile(rb"Content-Length: (\d+)\r\n")  # as pygls reads it


class ChunkedInput:
    """The server's stdin as pygls's reader uses it, reading a message's body as it arrives, a
    chunk at a time: a plain `read(n)` allocates the n bytes a `Content-Length` header claims
    before any arrives, so a header of 10^14 bytes made the server fail with MemoryError (and
    one of 5,000 digits, with the ValueError of Python's limit on the digits of an int)."""

    def __init__(self, stream: Any):
        self.stream = stream

    def readline(self) -> bytes:
        line = self.stream.readline(HEADER_BYTES)
        length = _LENGTH.fullmatch(line)
        if length is not None and len(length.group(1)) > LENGTH_DIGITS:
            return b"Content-Length: " + b"9" * LENGTH_DIGITS + b"\r\n"
        return line

    def read(self, size: int) -> bytes:
        parts, left = [], size
        while left > 0:
            part = self.stream.read(min(left, CHUNK_BYTES))
            if not part:  # the end of the input
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)


def converter() -> Any:
    """pygls's converter, reading an LSP integer only from a JSON integer."""
    made = default_converter()
    made.register_structure_hook(int, _whole_number)
    return made


def _whole_number(value: Any, type_: Any) -> Any:
    """An `int` field's value; the hook of int is also that of its subclasses, bool and the
    protocol's number enums (`DiagnosticSeverity`), read as cattrs reads them: `type_(value)`."""
    if type_ is not int:
        return type_(value)
    if type(value) is int:
        return value
    raise ValueError(f"expected a whole number, not {value!r:.40}")


class AnsweringProtocol(LanguageServerProtocol):
    """LanguageServerProtocol that answers the requests it cannot read (see the module's doc)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Keep every decoded object as it is: the whole message is read in `handle_message`,
        where a request that cannot be read is still known by its id."""
        return data

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, dict):
            if hasattr(message, "jsonrpc"):  # typed already (a reading loop that types as it decodes)
                super().handle_message(message)
            else:
                logger.warning("ignored a message that is no JSON object")
            return
        if "method" not in message:  # a response to a request of the server's own, or nothing
            if message.get("jsonrpc") == "2.0" and "id" in message and ("result" in message or "error" in message):
                super().handle_message(super().structure_message(message))
            else:
                logger.warning("ignored a message that is no request, notification or response")
            return
        method = message["method"]
        if "id" not in message:
            self._notification(message, method)
            return
        refusal = _refusal(message, getattr(self, "_shutdown", False))
        if refusal is None:
            known = self.get_message_type(method)
            if known is None:  # an unknown method: pygls answers MethodNotFound
                message = {**message, "params": message.get("params")}
            try:
                typed = self._converter.structure(message, known or JsonRPCRequestMessage)
            except Exception as err:  # cattrs' ClassValidationError, or a validator's ValueError
                refusal = JsonRpcInvalidParams(f"invalid params for {method}: {_fields(err)}").to_response_error()
            else:
                super().handle_message(typed)
                return
        msg_id = message["id"] if _good_id(message["id"]) else None
        logger.warning("answered request %r with an error: %s", msg_id, refusal.message)
        self._send_response(msg_id, error=refusal)  # type: ignore[arg-type]

    def _notification(self, message: dict[str, Any], method: Any) -> None:
        """A notification is never answered: one that cannot be read is logged, in one line."""
        if not isinstance(method, str) or message.get("jsonrpc") != "2.0":
            logger.warning("ignored a notification that is no JSON-RPC 2.0 notification")
            return
        try:
            typed = self._converter.structure(message, self.get_message_type(method) or JsonRPCNotification)
        except Exception as err:
            logger.warning("ignored %s: invalid params: %s", method, _fields(err))
            return
        super().handle_message(typed)


def _good_id(msg_id: Any) -> bool:
    return isinstance(msg_id, str) or (isinstance(msg_id, int) and not isinstance(msg_id, bool))


def _refusal(message: dict[str, Any], shut_down: bool) -> ResponseError | None:
    """Why a request is answered with InvalidRequest before its parameters are read, or None."""
    if message.get("jsonrpc") != "2.0":
        why = "not a JSON-RPC 2.0 request: 'jsonrpc' must be \"2.0\""
    elif not _good_id(message["id"]):
        why = "a request's id must be a number or a string"
    elif not isinstance(message["method"], str):
        why = "a request's method must be a string"
    elif shut_down and message["method"] != EXIT:
        why = "the server is shutting down: only 'exit' is answered now"
    else:
        return None
    return JsonRpcInvalidRequest(why).to_response_error()


def _fields(err: Exception) -> str:
    """What was wrong, by field in the editor's names: `$.params.position.line: expected int`."""
    try:
        from cattrs import transform_error

        found = transform_error(err, format_exception=_format)
    except Exception:  # an older cattrs, or an error it cannot walk
        found = [str(err)]
    shown = [_camel(line) for line in found[:MOST_FIELDS]]
    more = len(found) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _format(exc: BaseException, type_: Any) -> str:
    """One wrong field: a validator's own words (`Position.line should be in range ...`), else
    the type expected there (`expected Position`)."""
    if isinstance(exc, ValueError) and str(exc):
        return str(exc)
    if isinstance(exc, KeyError):
        return "required field missing"
    name = getattr(type_, "__name__", None) or str(type_)
    return f"expected {name}" if type_ is not None else "invalid value"


def _camel(text: str) -> str:
    """`$.params.text_document` as the protocol writes it: `$.params.textDocument`."""
    head, at, path = text.rpartition(" @ ")
    if not at:
        return text
    return f"{re.sub(r'_([a-z])', lambda m: m.group(1).upper(), path)}: {head}"
