#!/usr/bin/env python3
"""A listener for the confinement tests, started OUTSIDE the sandbox.

    listen.py tcp|udp|abstract|unix READYFILE LOGFILE [NAME]

Binds 127.0.0.1 on a free port (or the abstract UNIX socket @NAME, or the
pathname UNIX socket NAME, mode 0777), writes the port (or name) to READYFILE (a FIFO the test reads, or a file it makes
atomically), then logs every connection or datagram it receives to LOGFILE,
one line each, until it is killed (the tests do) or 600 s pass, a safety
net against a listener outliving its test, never a deadline a slow test
could reach."""
import os
import socket
import stat
import sys
import time

kind, ready, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
elif kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
elif kind == "unix":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sys.argv[4])
    os.chmod(sys.argv[4], 0o777)
    s.listen(16)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + sys.argv[4])
    s.listen(16)
name = sys.argv[4] if kind in ("abstract", "unix") else str(s.getsockname()[1])
if os.path.exists(ready) and stat.S_ISFIFO(os.stat(ready).st_mode):
    with open(ready, "w") as f:
        f.write(name + "\n")
else:
    tmp = ready + ".tmp"
    with open(tmp, "w") as f:
        f.write(name + "\n")
    os.rename(tmp, ready)
s.settimeout(0.5)
deadline = time.time() + 600
while time.time() < deadline:
    try:
        if kind == "udp":
            data, _ = s.recvfrom(512)
            line = "datagram " + data.decode(errors="replace").strip()
        else:
            conn, _ = s.accept()
            conn.close()
            line = "accepted"
    except socket.timeout:
        continue
    with open(log, "a") as f:
        f.write(line + "\n")
