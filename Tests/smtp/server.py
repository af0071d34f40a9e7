"""A real SMTP server for the tests (aiosmtpd), on 127.0.0.1 only.

    python server.py SPOOL --mode starttls|tls|plain [--user U --password P] [--reject-domain D]

Makes a throwaway certificate authority and server certificate (openssl) in SPOOL, prints one JSON
line {"port": N, "ca": PATH} when it listens, then writes every message it accepts to SPOOL as
NNNN.json: the envelope, the raw message, and what Python's `email` package reads from it (subject
and names decoded from RFC 2047, the text decoded from its transfer encoding, each attached file
saved as NNNN-K with its name and type), so a test checks the message as a mail program would show it. Recipients at --reject-domain are refused with 550.
Stops when its standard input closes (the test ended).
"""
import argparse
import email
import email.policy
import json
import os
import socket
import ssl
import subprocess
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword, SMTP


def make_certificates(folder):
    ca_key, ca = os.path.join(folder, "ca.key"), os.path.join(folder, "ca.pem")
    key, csr, cert = (os.path.join(folder, n) for n in ("server.key", "server.csr", "server.pem"))
    ext = os.path.join(folder, "san.ext")
    quiet = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
                    "-days", "2", "-subj", "/CN=Shelfmark test CA"], **quiet)
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
                    "-subj", "/CN=localhost"], **quiet)
    with open(ext, "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
                    "-out", cert, "-days", "2", "-extfile", ext], **quiet)
    return ca, cert, key


class Spool:
    def __init__(self, folder, reject_domain):
        self.folder = folder
        self.reject_domain = reject_domain
        self.count = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject_domain and address.lower().endswith("@" + self.reject_domain):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "authenticated": bool(session.authenticated),
            "raw": raw.decode("ascii", errors="replace"),
            "raw_is_ascii": all(b < 128 for b in raw),
            "subject": str(message["subject"]),
            "from": str(message["from"]),
            "to": str(message["to"]),
            "to_name": message["to"].addresses[0].display_name if message["to"] else "",
            "from_name": message["from"].addresses[0].display_name if message["from"] else "",
            "reply_to": str(message["reply-to"] or ""),
            "content_language": str(message["content-language"] or ""),
            "message_id": str(message["message-id"] or ""),
            "text": body.get_content() if body is not None else "",
            "defects": [type(d).__name__ for d in message.defects],
        }
        with self.lock:
            self.count += 1
            name = os.path.join(self.folder, "%04d.json" % self.count)
        attachments = []
        for k, part in enumerate(message.iter_attachments()):
            path = os.path.join(self.folder, "%04d-%d" % (self.count, k))
            with open(path, "wb") as f:
                f.write(part.get_payload(decode=True) or b"")
            attachments.append({"filename": part.get_filename() or "", "content_type": part.get_content_type(), "path": path})
        record["attachments"] = attachments
        with open(name + ".tmp", "w", encoding="utf-8") as f:
            json.dump(record, f, ensure_ascii=False)
        os.rename(name + ".tmp", name)
        return "250 2.0.0 Queued as test-%04d" % self.count


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spool")
    parser.add_argument("--mode", choices=["starttls", "tls", "plain"], default="starttls")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--reject-domain")
    args = parser.parse_args()
    os.makedirs(args.spool, exist_ok=True)
    ca, cert, key = make_certificates(args.spool)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    def authenticate(server, session, envelope, mechanism, auth_data):
        if isinstance(auth_data, LoginPassword) and auth_data.login.decode() == args.user \
                and auth_data.password.decode() == args.password:
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    options = dict(hostname="127.0.0.1", port=free_port(), server_hostname="localhost")
    if args.user:
        # With implicit TLS aiosmtpd does not see the connection as encrypted (it checks for STARTTLS), so
        # it is told to require TLS for AUTH only in STARTTLS mode; in TLS mode every byte is encrypted.
        options.update(authenticator=authenticate, auth_required=True, auth_require_tls=args.mode == "starttls")
    if args.mode == "starttls":
        options.update(tls_context=context, require_starttls=True)
    elif args.mode == "tls":
        options.update(ssl_context=context)
    controller = Controller(Spool(args.spool, args.reject_domain), **options)
    controller.start()
    print(json.dumps({"port": controller.port, "ca": ca}), flush=True)
    sys.stdin.read()
    controller.stop()


if __name__ == "__main__":
    main()
