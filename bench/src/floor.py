"""The cheapest HTTPS/1.1 client nginx can have, to measure what a download costs the server alone.

    python3 floor.py PORT PATH [PAUSE_US]

Does the TLS handshake, sends one request (Connection: close), then reads the encrypted reply
from the socket and throws it away without decrypting it, until nginx closes. It never waits in
recv(): when the socket is empty it sleeps PAUSE_US microseconds (default 25), so nginx never
has a sleeping reader to wake and the records it sends pile up and are taken in one read.
Prints the seconds from the request to the close, and the bytes read, on one line.
"""

import socket
import ssl
import sys
import time

port, path = int(sys.argv[1]), sys.argv[2]
pause = (int(sys.argv[3]) if len(sys.argv) > 3 else 25) / 1e6

ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.set_alpn_protocols(["http/1.1"])
sock = socket.create_connection(("127.0.0.1", port))
sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")


def flush():
    data = outgoing.read()
    if data:
        sock.sendall(data)


while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        flush()
        data = sock.recv(65536)
        if not data:
            sys.exit("floor: the server closed during the handshake")
        incoming.write(data)
flush()
tls.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
start = time.monotonic()
flush()

buf = bytearray(1 << 20)
total = 0
sock.setblocking(False)
while True:
    try:
        n = sock.recv_into(buf)
    except BlockingIOError:
        time.sleep(pause)
        continue
    if not n:
        break
    total += n
print(f"{time.monotonic() - start:.3f} {total}")
