"""A Tix webhook receiver with the Python 3 standard library only (3.8 or newer).

It verifies the Standard Webhooks headers over the raw body, refuses attempts older or newer than
five minutes, skips an event it has already handled (same webhook-id) and answers 2xx quickly.

    TIX_WEBHOOK_SECRET='whsec_...' PORT=4000 python3 docs/examples/webhook_receiver.py

PORT=0 picks a free port; the first line on stdout names the address either way.
"""

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 5 * 60  # how far webhook-timestamp may be from this machine's clock


def standard_webhooks_key(secret):
    """The HMAC key of a secret: whsec_<base64> decodes to bytes; any other secret is its UTF-8 text."""
    if secret.startswith("whsec_"):
        encoded = secret[len("whsec_"):]
        try:
            decoded = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if decoded and base64.b64encode(decoded).decode("ascii") == encoded:
            return decoded
    return secret.encode("utf-8")


def verify_standard_webhook(secret, raw_body, headers, now=None):
    """True when webhook-signature holds a v1,<base64> entry equal to HMAC-SHA256 of
    "<webhook-id>.<webhook-timestamp>.<raw body>" and the timestamp is within the tolerance.
    `headers` is any mapping with case-insensitive get(), such as http.server's."""
    message_id = headers.get("webhook-id") or ""
    timestamp = headers.get("webhook-timestamp") or ""
    if not message_id or not re.fullmatch(r"[0-9]+", timestamp):
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    signed = message_id.encode("utf-8") + b"." + timestamp.encode("ascii") + b"." + raw_body
    expected = hmac.new(standard_webhooks_key(secret), signed, hashlib.sha256).digest()
    for entry in (headers.get("webhook-signature") or "").split(" "):  # one match is enough
        if not entry.startswith("v1,"):
            continue
        try:
            given = base64.b64decode(entry[len("v1,"):], validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(given, expected):
            return True
    return False


def verify_hex_signature(secret, raw_body, signature):
    """The API specification's scheme: X-Webhook-Signature is hex HMAC-SHA256 of the raw body,
    keyed with the whole secret."""
    if not re.fullmatch(r"[0-9a-f]{64}", signature or ""):
        return False
    expected = hmac.new(secret.encode("utf-8"), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def make_handler(secret):
    handled = set()  # keep event ids in your database in production

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            raw_body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not verify_standard_webhook(secret, raw_body, self.headers):  # the exact bytes, before parsing
                print("refused: signature or timestamp invalid", flush=True)
                return self.answer(401)
            event_id = self.headers["webhook-id"]
            if event_id in handled:
                print("duplicate %s: already handled" % event_id, flush=True)
                return self.answer(200)
            handled.add(event_id)
            delivery = json.loads(raw_body)
            print("verified %s %s %s" % (delivery["event"], event_id, json.dumps(delivery["data"])[:80]), flush=True)
            # Hand slow work to a queue: Tix waits 10 seconds at most for the answer.
            return self.answer(204)

        def answer(self, status):
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format, *args):  # the lines above say what happened
            pass

    return Receiver


def main():
    secret = os.environ.get("TIX_WEBHOOK_SECRET")
    if not secret:
        print("Set TIX_WEBHOOK_SECRET to the secret shown when the subscription was created.", file=sys.stderr)
        sys.exit(2)
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "4000"))), make_handler(secret))
    print("listening on http://127.0.0.1:%d/" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
